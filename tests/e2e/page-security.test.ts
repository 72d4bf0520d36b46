import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildUser, type TestUser } from "../support/factories.js";
import { client } from "../support/http.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { postForm } from "../support/form-post.js";

let server: TestServer;
let limitedServer: TestServer;
let member: TestUser;

beforeAll(async () => {
  server = await startTestServer();
  limitedServer = await startTestServer({ RATE_LIMITS: "on" });
  member = await buildUser(server, client(server.url));
});
afterAll(async () => {
  await server.close();
  await limitedServer.close();
});

describe("page forms", () => {
  it("count login attempts however the URL is spelled", async () => {
    const attempt = "email=victim%40example.com&password=Guess!1234";
    // A different account each time, so only the per-address limit is reached.
    for (let i = 0; i < 10; i += 1) {
      const other = `email=victim${String(i)}%40example.com&password=Guess!1234`;
      expect((await postForm(limitedServer, "/login", other)).status).toBe(400);
    }
    for (const path of ["/login", "/LOGIN", "/Login", "/login/", "/%6cogin", "/login.data"]) {
      const response = await postForm(limitedServer, path, attempt);
      expect(response.status, path).toBe(429);
    }
  });

  it("keep each limit's count apart", async () => {
    const response = await postForm(limitedServer, "/forgot-password", "email=ghost%40example.com");
    expect(response.status).toBe(200);
  });

  it("spend one allowance with their API route", async () => {
    // Five reset links an hour per address: one was asked for above through the page, four more
    // through the API use up the rest, and the page is refused.
    for (let i = 0; i < 4; i += 1) {
      const reply = await client(limitedServer.url).post("/api/password/reset-password-link", {
        email: "ghost@example.com",
      });
      expect(reply.status).toBe(200);
    }
    const response = await postForm(limitedServer, "/forgot-password", "email=ghost%40example.com");
    expect(response.status).toBe(429);
  });

  it("answer a refused login with its status, and the message in the page", async () => {
    const response = await postForm(
      server,
      "/login",
      `email=${encodeURIComponent(member.email)}&password=Wrong!pass1`,
    );
    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(
      /<p role="alert" class="form-error">Invalid email or password<\/p>/,
    );
  });

  it("answer a body no form sends with 400, never 500", async () => {
    const cookie = `session=${member.token}`;
    const bad = [
      { path: "/login", type: "application/json", body: "{}" },
      { path: "/login", type: "text/plain", body: "hello" },
      {
        path: "/posts/create-post",
        type: "multipart/form-data; boundary=xyz",
        body: "garbage",
        cookie,
      },
      { path: "/posts/create-post", type: "multipart/form-data", body: "garbage", cookie },
    ];
    for (const { path, type, body, cookie: sent } of bad) {
      const response = await postForm(server, path, body, {
        "content-type": type,
        ...(sent ? { cookie: sent } : {}),
      });
      expect(response.status, `${path} ${type}`).toBe(400);
    }
    const logged = server.logs.filter((line) => line.includes('"level":50'));
    expect(logged).toEqual([]);
  });

  it("refuse an unknown action with 400", async () => {
    const response = await postForm(server, `/profile/${member.id}`, "intent=nonsense", {
      cookie: `session=${member.token}`,
    });
    expect(response.status).toBe(400);
  });

  it("treat an undecodable session cookie as signed out", async () => {
    const response = await fetch(`${server.url}/posts`, {
      headers: { cookie: "session=%E0%A4%A" },
    });
    expect(response.status).toBe(200);
  });

  it("mark pages made for a signed-in person as private", async () => {
    const signedIn = await fetch(`${server.url}/`, {
      headers: { cookie: `session=${member.token}` },
    });
    expect(signedIn.headers.get("cache-control")).toBe("private, no-store");
    const anonymous = await fetch(`${server.url}/`);
    expect(anonymous.headers.get("cache-control")).not.toBe("private, no-store");
  });

  it("refuse a cross-site post before reading its body", async () => {
    const response = await postForm(server, "/login", "x".repeat(2_000_000), {
      origin: "https://evil.example",
    });
    expect(response.status).toBe(403);
  });
});
