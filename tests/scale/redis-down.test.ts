import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildUser, signInAdmin, type TestUser } from "../support/factories.js";
import { client, type Client } from "../support/http.js";
import { addCategory, addPost, type PostDetail } from "../support/post-fixtures.js";
import { freePort, startTestServer, type TestServer } from "../support/test-server.js";

// REDIS_URL names a Redis that does not answer (it went away, or never came): the site keeps
// working without shared counters and caches, each answer held up a second at most, its limits
// counted by the instance alone meanwhile, and the log says why. Needs no Redis, so it runs
// everywhere.

let server: TestServer;
let api: Client;
let member: TestUser;
let post: PostDetail;

beforeAll(async () => {
  const deadPort = await freePort();
  server = await startTestServer({
    REDIS_URL: `redis://127.0.0.1:${String(deadPort)}`,
    RATE_LIMITS: "on",
    // Tests below sign in from addresses of their own, apart from the per-address sign-in limit.
    TRUST_PROXY: "1",
  });
  api = client(server.url);
  const admin = await signInAdmin(server, api);
  await addCategory(api, admin, "News");
  member = await buildUser(server, api);
  post = await addPost(api, member, { category: "News" });
}, 60_000);
afterAll(() => server.close());

/** Runs `request` and fails if it took longer than a Redis outage should cost. */
async function quickly<T>(request: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await request();
  expect(performance.now() - started).toBeLessThan(2_000);
  return result;
}

describe("with REDIS_URL set but Redis unreachable", () => {
  it("reads, signs in and writes, each answer in seconds, not minutes", async () => {
    expect((await quickly(() => api.get("/api/posts"))).status).toBe(200);
    expect((await quickly(() => api.get(`/api/posts/${post._id}`))).status).toBe(200);
    const login = await quickly(() =>
      api.post("/api/auth/login", { email: member.email, password: member.password }),
    );
    expect(login.status, login.text).toBe(200);
    const comment = await quickly(() =>
      api.post("/api/comments", { text: "Still here", postId: post._id }, { token: member.token }),
    );
    expect(comment.status, comment.text).toBe(201);
    const like = await quickly(() =>
      api.put(`/api/posts/like/${post._id}`, undefined, { token: member.token }),
    );
    expect(like.status).toBe(200);
    // The write shows at once: without the shared version nothing is served from a cache.
    const detail = await api.get<PostDetail>(`/api/posts/${post._id}`);
    expect(detail.body.comments.map((c) => c.text)).toContain("Still here");
    expect(detail.body.likes.map((user) => user._id)).toContain(member.id);
  }, 60_000);

  it("still refuses a wrong password with the usual answer, and logs where it was counted", async () => {
    const wrong = await quickly(() =>
      api.post("/api/auth/login", { email: member.email, password: "Wrong-pass1!" }),
    );
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ message: "Invalid email or password" });
    const warnings = server.logs.filter((line) => line.includes('"level":40'));
    expect(
      warnings.some((line) => line.includes("sign-in attempts counted by this instance only")),
    ).toBe(true);
    // No answer leaked the Redis error.
    expect(JSON.stringify(wrong.body)).not.toMatch(/redis|ECONNREFUSED/i);
  }, 30_000);

  it("keeps locking an account after its failed sign-ins, counted by this instance", async () => {
    const target = await buildUser(server, api);
    const from = { headers: { "x-forwarded-for": "203.0.113.7" } };
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      const wrong = await api.post(
        "/api/auth/login",
        { email: target.email, password: "Wrong-pass1!" },
        from,
      );
      expect(wrong.status, `attempt ${String(attempt)}`).toBe(400);
    }
    const locked = await api.post<{ message: string }>(
      "/api/auth/login",
      { email: target.email, password: target.password },
      from,
    );
    expect(locked.status).toBe(429);
    expect(locked.body.message).toMatch(/^Too many failed sign-in attempts for this account/);
  }, 30_000);

  it("keeps the per-address limits, counted by this instance", async () => {
    const statuses: number[] = [];
    for (let request = 0; request < 6; request += 1) {
      const reply = await api.post("/api/password/reset-password-link", {
        email: "someone@example.com",
      });
      statuses.push(reply.status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    const warnings = server.logs.filter((line) => line.includes('"level":40'));
    expect(warnings.some((line) => line.includes("rate limit counted by this instance only"))).toBe(
      true,
    );
  }, 30_000);
});
