import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildUser, signInAdmin, type TestUser } from "../support/factories.js";
import { client, type Client } from "../support/http.js";
import { addCategory, addPost, type PostDetail } from "../support/post-fixtures.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { postForm } from "../support/form-post.js";

// No browser: the headers and refusals a browser relies on, read off real answers of the built site
// (pages need the build, so this lives with the browser tests). What tests/api/server.test.ts
// already checks on the API over plain HTTP is not repeated here.

let server: TestServer;
let api: Client;
let admin: TestUser;
let member: TestUser;
let post: PostDetail;

beforeAll(async () => {
  server = await startTestServer();
  api = client(server.url);
  admin = await signInAdmin(server, api);
  member = await buildUser(server, api);
  await addCategory(api, admin, "Food");
  post = await addPost(api, member, { title: "Bread", category: "Food" });
});
afterAll(() => server.close());

/** The directives of a Content-Security-Policy header, by name. */
function directives(header: string | null) {
  expect(header, "no Content-Security-Policy").not.toBeNull();
  const found = new Map<string, string[]>();
  for (const part of (header ?? "").split(";")) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name) found.set(name.toLowerCase(), values);
  }
  return found;
}

/** Fails unless the policy allows no inline script but by nonce or hash, and no framing. */
function expectStrictCsp(header: string | null, where: string) {
  const csp = directives(header);
  const scripts = csp.get("script-src") ?? csp.get("default-src");
  expect(scripts, `${where}: no script-src`).toBeDefined();
  for (const source of scripts ?? []) {
    expect(
      source === "'self'" || /^'(nonce|sha256)-[A-Za-z0-9+/=]+'$/.test(source),
      `${where}: script-src allows ${source}`,
    ).toBe(true);
  }
  expect(csp.get("frame-ancestors"), where).toEqual(["'none'"]);
  expect(csp.get("object-src"), where).toEqual(["'none'"]);
  expect(csp.get("base-uri"), where).toEqual(["'self'"]);
}

function expectBaseHeaders(headers: Headers, where: string) {
  expectStrictCsp(headers.get("content-security-policy"), where);
  expect(headers.get("x-content-type-options"), where).toBe("nosniff");
  expect(headers.get("referrer-policy"), where).toBe("strict-origin-when-cross-origin");
}

describe("security headers over plain HTTP", () => {
  it("are on pages rendered for a signed-in reader, with a fresh nonce on each render", async () => {
    const nonces: string[] = [];
    for (let i = 0; i < 2; i += 1) {
      // The reading list is rendered whole for its reader (not from a shell, decision 021).
      const response = await fetch(`${server.url}/reading-list`, {
        headers: { cookie: `session=${member.token}` },
      });
      expect(response.status).toBe(200);
      expectBaseHeaders(response.headers, "signed-in page");
      expect(response.headers.get("strict-transport-security")).toBeNull();
      const nonce = /'nonce-([^']+)'/.exec(response.headers.get("content-security-policy") ?? "");
      expect(nonce).not.toBeNull();
      nonces.push(nonce?.[1] ?? "");
      // Every inline script carries this answer's nonce; none is allowed without it.
      const html = await response.text();
      const scripts = [...html.matchAll(/<script(?![^>]*\bsrc=)([^>]*)>/g)];
      expect(scripts.length).toBeGreaterThan(0);
      for (const [, attributes] of scripts) expect(attributes).toContain(`nonce="${nonce?.[1]}"`);
    }
    expect(nonces[0]).not.toBe(nonces[1]);
  });

  it("are on member pages made from a shell, allowing exactly their own inline scripts", async () => {
    const response = await fetch(`${server.url}/posts/details/${post._id}`, {
      headers: { cookie: `session=${member.token}` },
    });
    expect(response.status).toBe(200);
    expectBaseHeaders(response.headers, "member page");
    const policy = response.headers.get("content-security-policy") ?? "";
    expect(policy).not.toContain("'nonce-");
    // Each inline script (the viewer's data script too) by its hash, and nothing else inline.
    const html = await response.text();
    const scripts = [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([^]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    const hashes = new Set(
      scripts.map(
        ([, content]) =>
          `'sha256-${createHash("sha256")
            .update(content ?? "", "utf8")
            .digest("base64")}'`,
      ),
    );
    const allowed = (directives(policy).get("script-src") ?? []).filter((source) =>
      source.startsWith("'sha256-"),
    );
    expect(new Set(allowed)).toEqual(hashes);
  });

  it("are on shared anonymous pages, the not-found page and form answers", async () => {
    for (const path of ["/", "/posts", "/posts/categories/Food", "/no-such-page", "/login"]) {
      const response = await fetch(`${server.url}${path}`);
      expectBaseHeaders(response.headers, path);
      expect(response.headers.get("strict-transport-security"), path).toBeNull();
    }
    const refused = await postForm(
      server,
      "/login",
      "email=nobody%40example.com&password=Wrong!pass1",
    );
    expect(refused.status).toBe(400);
    expectBaseHeaders(refused.headers, "refused login form");
  });

  it("are on API answers: reads, writes, errors and feeds", async () => {
    const answers = [
      await api.get("/api/posts"),
      await api.get(`/api/posts/${post._id}`),
      await api.put(`/api/posts/like/${post._id}`, undefined, { token: member.token }),
      await api.post("/api/comments", { text: "", postId: post._id }, { token: member.token }),
      await api.post("/api/categories", { title: "Nope" }),
      await api.get("/rss.xml"),
      await api.get("/sitemap.xml"),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 400, 401, 200, 200]);
    for (const answer of answers) expectBaseHeaders(answer.headers, answer.text.slice(0, 40));
  });

  it("send uploaded images as images only: nosniff, their own type, no page policy needed", async () => {
    const response = await fetch(post.image.url.replace(server.config.publicUrl, server.url));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^image\//);
    expectBaseHeaders(response.headers, "an uploaded image");
  });
});

describe("behind HTTPS (PUBLIC_URL=https://...)", () => {
  let secure: TestServer;
  const origin = "https://blog.example";

  beforeAll(async () => {
    secure = await startTestServer({ PUBLIC_URL: origin });
  });
  afterAll(() => secure.close());

  /** A form post as the site's own page sends it; the proxy in front ends TLS. */
  const formPost = (path: string, body: string, cookie?: string) =>
    postForm(secure, path, body, cookie ? { cookie } : {});

  it("sets the session cookie as __Host-session, Secure, HttpOnly, SameSite=Lax, for the whole host", async () => {
    const secureApi = client(secure.url);
    const user = await buildUser(secure, secureApi);
    const login = await formPost(
      "/login",
      `email=${encodeURIComponent(user.email)}&password=${encodeURIComponent(user.password)}`,
    );
    expect(login.status).toBe(302);
    const cookies = login.headers.getSetCookie();
    expect(cookies).toHaveLength(1);
    const [pair, ...attributes] = (cookies[0] ?? "").split(";").map((part) => part.trim());
    expect(pair).toMatch(/^__Host-session=[A-Za-z0-9_-]{20,100}$/);
    const flags = attributes.map((attribute) => attribute.toLowerCase());
    for (const flag of ["secure", "httponly", "samesite=lax", "path=/"]) {
      expect(flags, flag).toContain(flag);
    }
    // __Host- cookies must not name a domain (the browser drops them otherwise).
    expect(flags.some((flag) => flag.startsWith("domain="))).toBe(false);

    // Only the prefixed name signs in: a plain "session" cookie could be planted by a subdomain.
    const token = (pair ?? "").slice("__Host-session=".length);
    const profile = (cookie: string) =>
      fetch(`${secure.url}/profile/${user.id}`, { redirect: "manual", headers: { cookie } });
    expect((await profile(`__Host-session=${token}`)).status).toBe(200);
    expect((await profile(`session=${token}`)).status).toBe(302);

    const logout = await formPost("/logout", "", `__Host-session=${token}`);
    expect(logout.status).toBe(302);
    const cleared = logout.headers.getSetCookie().join("\n");
    expect(cleared).toMatch(/^__Host-session=;.*Max-Age=0/);
    expect(cleared).toContain("Secure");
  });

  it("sends HSTS on pages, the API and uploads, and asks browsers to upgrade insecure requests", async () => {
    const secureApi = client(secure.url);
    const owner = await signInAdmin(secure, secureApi);
    await addCategory(secureApi, owner, "News");
    const added = await addPost(secureApi, owner, { category: "News" });
    const answers = [
      await fetch(`${secure.url}/`),
      await fetch(`${secure.url}/posts/details/${added._id}`, {
        headers: { cookie: `__Host-session=${owner.token}` },
      }),
      await fetch(`${secure.url}/api/posts`),
      await fetch(added.image.url.replace(origin, secure.url)),
    ];
    for (const answer of answers) {
      expect(answer.status, answer.url).toBe(200);
      expect(answer.headers.get("strict-transport-security"), answer.url).toMatch(/^max-age=(\d+)/);
      const maxAge = Number(
        /max-age=(\d+)/.exec(answer.headers.get("strict-transport-security") ?? "")?.[1],
      );
      // At least half a year: a short HSTS is barely one.
      expect(maxAge).toBeGreaterThanOrEqual(15_552_000);
      expectBaseHeaders(answer.headers, answer.url);
    }
    for (const page of answers.slice(0, 2)) {
      expect(
        directives(page.headers.get("content-security-policy")).has("upgrade-insecure-requests"),
      ).toBe(true);
    }
  });
});

describe("writes with the session cookie from another origin", () => {
  /** Origin headers a cross-site (or same-site, other-origin) form post arrives with. */
  const foreign = (): Record<string, Record<string, string>> => ({
    "another site": { origin: "https://evil.example" },
    "an opaque origin (sandboxed frame, data: page)": { origin: "null" },
    "the same host on another port": { origin: "http://127.0.0.1:1" },
    "the https twin of this origin": { origin: server.config.publicUrl.replace("http:", "https:") },
    "a cross-site fetch without Origin": { "sec-fetch-site": "cross-site" },
    "a same-site fetch without Origin": { "sec-fetch-site": "same-site" },
  });

  /** The page form posts a signed-in person can make, and a way to see that nothing changed. */
  function pageWrites() {
    return [
      { path: `/posts/details/${post._id}`, body: "intent=like", cookieOf: member },
      {
        path: `/posts/details/${post._id}.data`,
        body: "intent=comment&text=Planted+from+afar",
        cookieOf: member,
      },
      {
        path: `/profile/${member.id}`,
        body: `intent=edit-profile&username=${member.username}&email=${encodeURIComponent(member.email)}&bio=Planted&password=Taken1!`,
        cookieOf: member,
      },
      { path: "/admin-dashboard", body: "title=Planted", cookieOf: admin },
      { path: `/posts/details/${post._id}`, body: "intent=delete-post", cookieOf: admin },
      { path: "/logout", body: "", cookieOf: member },
    ];
  }

  async function snapshot() {
    const [detail, profile, categories] = await Promise.all([
      api.get<PostDetail>(`/api/posts/${post._id}`),
      api.get<{ bio: string }>(`/api/users/profile/${member.id}`),
      api.get<{ title: string }[]>("/api/categories"),
    ]);
    return {
      post: detail.status,
      likes: detail.body.likes.map((user) => user._id),
      comments: detail.body.comments.map((comment) => comment.text),
      bio: profile.body.bio,
      categories: categories.body.map((category) => category.title).sort(),
    };
  }

  it("are refused on every page form with 403, and change nothing", async () => {
    const before = await snapshot();
    for (const [who, headers] of Object.entries(foreign())) {
      for (const write of pageWrites()) {
        const response = await fetch(`${server.url}${write.path}`, {
          method: "POST",
          redirect: "manual",
          headers: {
            "content-type": "application/x-www-form-urlencoded",
            cookie: `session=${write.cookieOf.token}`,
            ...headers,
          },
          body: write.body,
        });
        expect(response.status, `${who}: ${write.path} ${write.body}`).toBe(403);
        expect(response.headers.getSetCookie(), who).toEqual([]);
      }
    }
    expect(await snapshot()).toEqual(before);
    // The refused /logout did not end the session either.
    const profile = await fetch(`${server.url}/profile/${member.id}`, {
      redirect: "manual",
      headers: { cookie: `session=${member.token}` },
    });
    expect(profile.status).toBe(200);
  });

  it("go through from the site itself (the refusals above are about the origin, not the request)", async () => {
    const fresh = await buildUser(server, api);
    const response = await postForm(server, `/posts/details/${post._id}`, "intent=like", {
      cookie: `session=${fresh.token}`,
      "sec-fetch-site": "same-origin",
    });
    expect(response.status).toBeLessThan(400);
    const detail = await api.get<PostDetail>(`/api/posts/${post._id}`);
    expect(detail.body.likes.map((user) => user._id)).toContain(fresh.id);
  });

  it("are refused by the API, which reads only the Bearer header: a cookie alone is 401", async () => {
    const fresh = await buildUser(server, api);
    const cookie = { cookie: `session=${fresh.token}`, origin: server.config.publicUrl };
    const writes = [
      await api.put(`/api/posts/like/${post._id}`, undefined, { headers: cookie }),
      await api.post("/api/comments", { text: "By cookie", postId: post._id }, { headers: cookie }),
      await api.put(
        `/api/users/profile/${fresh.id}`,
        { username: fresh.username, email: fresh.email, bio: "By cookie" },
        { headers: cookie },
      ),
      await api.delete(`/api/users/profile/${fresh.id}`, { headers: cookie }),
      await api.post("/api/auth/logout", undefined, { headers: cookie }),
    ];
    for (const write of writes) {
      expect(write.status, write.text).toBe(401);
      expect(write.body).toMatchObject({ message: "No token provided, please log in" });
    }
    const detail = await api.get<PostDetail>(`/api/posts/${post._id}`);
    expect(detail.body.likes.map((user) => user._id)).not.toContain(fresh.id);
    expect(detail.body.comments.map((comment) => comment.text)).not.toContain("By cookie");
    // Still there and still signed in.
    expect((await api.get(`/api/users/profile/${fresh.id}`)).status).toBe(200);
    expect((await api.post("/api/auth/logout", undefined, { token: fresh.token })).status).toBe(
      204,
    );
  });
});

describe("social link URLs on the profile form", () => {
  it("refuse javascript:, data: and vbscript: links with 400 and keep the stored ones", async () => {
    const owner = await buildUser(server, api);
    for (const url of ["javascript:alert(1)", "data:text/html,<script>1</script>", "vbscript:x"]) {
      const body = new URLSearchParams({
        intent: "edit-profile",
        username: owner.username,
        email: owner.email,
        bio: "Changed",
        "socialMedia.0.name": "github",
        "socialMedia.0.url": url,
      });
      const response = await postForm(server, `/profile/${owner.id}`, body.toString(), {
        cookie: `session=${owner.token}`,
      });
      expect(response.status, url).toBe(400);
      expect(await response.text()).toContain("Url must start with http:// or https://");
    }
    const profile = await api.get<{ bio: string; socialMedia: unknown[] }>(
      `/api/users/profile/${owner.id}`,
    );
    expect(profile.body.socialMedia).toEqual([]);
    expect(profile.body.bio).not.toBe("Changed");
  });
});
