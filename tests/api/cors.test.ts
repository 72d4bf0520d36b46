import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildUser, signInAdmin, type TestUser } from "../support/factories.js";
import { client, type Client } from "../support/http.js";
import { pngImage } from "../support/images.js";
import { addCategory, addPost } from "../support/post-fixtures.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

// Browser calls from other origins, read off real answers over plain HTTP (what a browser decides
// from them is tests/e2e/cross-origin-client.test.ts). The two listed origins are written as an
// operator might, with a trailing slash and a default port.
const APP = "https://app.example.com";
const OTHER_APP = "http://localhost:5173";
const STRANGER = "https://evil.example.net";

let server: TestServer;
let plain: TestServer;
let api: Client;
let admin: TestUser;
let member: TestUser;
/** Every SQL statement the server ran, in order. */
const queries: string[] = [];

beforeAll(async () => {
  [server, plain] = await Promise.all([
    startTestServer(
      { CORS_ORIGINS: `${APP}:443/, ${OTHER_APP}`, RATE_LIMITS: "on" },
      {
        onQuery: (sql, background) => {
          if (!background) queries.push(sql);
        },
      },
    ),
    startTestServer(),
  ]);
  api = client(server.url);
  admin = await signInAdmin(server, api);
  member = await buildUser(server, api);
  await addCategory(api, admin, "Music");
});
afterAll(() => Promise.all([server.close(), plain.close()]));

/** A browser's preflight before a call with a bearer token and a JSON body. */
function preflight(base: string, path: string, origin: string, method = "POST") {
  return fetch(`${base}${path}`, {
    method: "OPTIONS",
    headers: {
      origin,
      "access-control-request-method": method,
      "access-control-request-headers": "authorization,content-type",
    },
  });
}

/** Fails unless the answer lets no other origin read it. */
function expectNoCors(response: Response, where: string) {
  expect(response.headers.get("access-control-allow-origin"), where).toBeNull();
  expect(response.headers.get("access-control-allow-methods"), where).toBeNull();
  expect(response.headers.get("access-control-allow-credentials"), where).toBeNull();
}

/** Fails unless the answer lets `origin` read it, and nothing more than that. */
function expectCorsFor(response: Response, origin: string, where: string) {
  expect(response.headers.get("access-control-allow-origin"), where).toBe(origin);
  expect(response.headers.get("access-control-allow-credentials"), where).toBeNull();
  expect(response.headers.get("vary") ?? "", where).toMatch(/\bOrigin\b/);
}

describe("preflights", () => {
  it("are not answered without CORS_ORIGINS, the default", async () => {
    const response = await preflight(plain.url, "/api/auth/login", APP);
    expect(response.status).toBe(404);
    expectNoCors(response, "default");
  });

  it("are not answered for an origin that is not listed", async () => {
    for (const origin of [STRANGER, "https://app.example.com.evil.net", "null", server.url]) {
      const response = await preflight(server.url, "/api/auth/login", origin);
      expect(response.status, origin).toBe(404);
      expectNoCors(response, origin);
    }
  });

  it("are not answered outside /api, where the pages and forms are the site's own", async () => {
    for (const path of ["/login", "/healthz", "/rss.xml", "/images/default-avatar.svg"]) {
      const response = await preflight(server.url, path, APP);
      expect(response.status, path).toBe(404);
      expectNoCors(response, path);
    }
  });

  it("are answered 204 for a listed origin: methods, bearer and body headers, no credentials", async () => {
    for (const [origin, path, method] of [
      [APP, "/api/auth/login", "POST"],
      [OTHER_APP, "/api/posts", "POST"],
      [APP, "/api/posts/00000000-0000-4000-8000-000000000000", "PUT"],
      [APP, "/api/comments/00000000-0000-4000-8000-000000000000", "DELETE"],
    ] as const) {
      const response = await preflight(server.url, path, origin, method);
      expect(response.status, path).toBe(204);
      expectCorsFor(response, origin, path);
      const methods = (response.headers.get("access-control-allow-methods") ?? "").split(/,\s*/);
      expect(methods).toEqual(expect.arrayContaining(["GET", "POST", "PUT", "DELETE"]));
      expect(response.headers.get("access-control-allow-headers")).toBe(
        "Authorization, Content-Type",
      );
      expect(response.headers.get("access-control-max-age")).toBe("600");
    }
  });
});

describe("answers of the API to a listed origin", () => {
  it("let it read the sign-in and a post made with a multipart upload", async () => {
    const login = await fetch(`${server.url}/api/auth/login`, {
      method: "POST",
      headers: { origin: APP, "content-type": "application/json" },
      body: JSON.stringify({ email: member.email, password: member.password }),
    });
    expect(login.status).toBe(200);
    expectCorsFor(login, APP, "login");
    const { token } = (await login.json()) as { token: string };

    const form = new FormData();
    form.append("title", "Across origins");
    form.append("category", "Music");
    form.append("description", "Sent by a client hosted on another origin.");
    form.append(
      "image",
      new Blob([new Uint8Array(await pngImage())], { type: "image/png" }),
      "a.png",
    );
    const created = await fetch(`${server.url}/api/posts`, {
      method: "POST",
      headers: { origin: APP, authorization: `Bearer ${token}` },
      body: form,
    });
    expect(created.status).toBe(201);
    expectCorsFor(created, APP, "create");
  });

  it("carry the header on refusals too, so the client can show their message", async () => {
    const missing = "00000000-0000-4000-8000-000000000000";
    const refusals: [string, Promise<Response>][] = [
      [
        "400",
        fetch(`${server.url}/api/auth/login`, {
          method: "POST",
          headers: { origin: APP, "content-type": "application/json" },
          body: "{}",
        }),
      ],
      [
        "401",
        fetch(`${server.url}/api/posts/${missing}`, { method: "DELETE", headers: { origin: APP } }),
      ],
      [
        "403",
        fetch(`${server.url}/api/categories`, {
          method: "POST",
          headers: {
            origin: APP,
            authorization: `Bearer ${member.token}`,
            "content-type": "application/json",
          },
          body: JSON.stringify({ title: "Nope" }),
        }),
      ],
      ["404", fetch(`${server.url}/api/posts/${missing}`, { headers: { origin: APP } })],
      ["404", fetch(`${server.url}/api/no-such-call`, { headers: { origin: APP } })],
      [
        "404",
        fetch(`${server.url}/api/no-such-call`, {
          method: "POST",
          headers: { origin: APP, "content-type": "application/json" },
          body: "{}",
        }),
      ],
    ];
    for (const [status, pending] of refusals) {
      const response = await pending;
      expect(String(response.status)).toBe(status);
      expectCorsFor(response, APP, status);
      expect(await response.json()).toHaveProperty("message");
    }
  });

  it("carry it on a 429 and expose its Retry-After", async () => {
    let response: Response | undefined;
    for (let i = 0; i < 6; i += 1) {
      response = await fetch(`${server.url}/api/password/reset-password-link`, {
        method: "POST",
        headers: { origin: APP, "content-type": "application/json" },
        body: JSON.stringify({ email: "nobody@example.com" }),
      });
    }
    expect(response?.status).toBe(429);
    if (!response) return;
    expectCorsFor(response, APP, "429");
    expect(response.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(response.headers.get("access-control-expose-headers")).toBe("Retry-After");
  });

  it("give nothing to an origin that is not listed, nor outside /api", async () => {
    expectNoCors(
      await fetch(`${server.url}/api/posts/count`, { headers: { origin: STRANGER } }),
      "stranger",
    );
    for (const path of ["/healthz", "/rss.xml", "/images/default-avatar.svg"]) {
      const response = await fetch(`${server.url}${path}`, { headers: { origin: APP } });
      expect(response.status, path).toBe(200);
      expectNoCors(response, path);
      // Not even this: some CDNs keep nothing that varies on more than the encoding.
      expect(response.headers.get("vary") ?? "", path).not.toMatch(/origin/i);
    }
  });
});

describe("shared answers across origins", () => {
  it("carry each caller's own header, kept or not, and vary by Origin", async () => {
    await addPost(api, member, { title: "Kept", category: "Music" });
    const path = "/api/posts?pageNumber=1";
    const first = await fetch(`${server.url}${path}`, { headers: { origin: APP } });
    expect(first.status).toBe(200);
    expectCorsFor(first, APP, "first");
    expect(first.headers.get("vary")).toMatch(/\bAccept-Encoding\b/);
    const etag = first.headers.get("etag") ?? "";
    expect(etag).not.toBe("");
    const body = await first.text();

    // From here on the answer comes from the cache: no query runs.
    const before = queries.length;
    const other = await fetch(`${server.url}${path}`, { headers: { origin: OTHER_APP } });
    expect(await other.text()).toBe(body);
    expectCorsFor(other, OTHER_APP, "kept, other origin");
    expect(other.headers.get("vary")).toMatch(/\bAccept-Encoding\b/);

    const stranger = await fetch(`${server.url}${path}`, { headers: { origin: STRANGER } });
    expect(await stranger.text()).toBe(body);
    expectNoCors(stranger, "kept, stranger");
    const noOrigin = await fetch(`${server.url}${path}`);
    expect(await noOrigin.text()).toBe(body);
    expectNoCors(noOrigin, "kept, no origin");

    const revalidated = await fetch(`${server.url}${path}`, {
      headers: { origin: OTHER_APP, "if-none-match": etag },
    });
    expect(revalidated.status).toBe(304);
    expectCorsFor(revalidated, OTHER_APP, "304");
    expect(queries.length).toBe(before);
  });
});
