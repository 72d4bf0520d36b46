import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, type Client } from "../support/http.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

let server: TestServer;
let api: Client;

beforeAll(async () => {
  server = await startTestServer({ RATE_LIMITS: "on" });
  api = client(server.url);
});
afterAll(() => server.close());

async function hammer(times: number, call: () => Promise<{ status: number }>) {
  const statuses: number[] = [];
  for (let i = 0; i < times; i += 1) statuses.push((await call()).status);
  return statuses;
}

describe("rate limits", () => {
  it("stops login attempts from one address after 10 in 15 minutes with a 429 and a message", async () => {
    // A different account each time: the per-account limit (login-attempts.test.ts) stays out of it.
    let attempt = 0;
    const statuses = await hammer(11, () => {
      attempt += 1;
      return api.post("/api/auth/login", {
        email: `victim${String(attempt)}@example.com`,
        password: "Guess!1234",
      });
    });
    expect(statuses.slice(0, 10).every((status) => status === 400)).toBe(true);
    const reply = await api.post("/api/auth/login", { email: "victim@example.com", password: "x" });
    expect(statuses[10]).toBe(429);
    expect(reply.status).toBe(429);
    expect(reply.body).toEqual({
      message: expect.stringMatching(
        /^Too many requests, please try again in \d+ minutes?$/,
      ) as unknown,
    });
    expect(reply.headers.get("retry-after")).toMatch(/^\d+$/);
  });

  it("stops sign-ups after 10 in an hour", async () => {
    const statuses = await hammer(11, () => api.post("/api/auth/register", {}));
    expect(statuses.slice(0, 10).every((status) => status === 400)).toBe(true);
    expect(statuses[10]).toBe(429);
  });

  it("stops reset-link requests after 5 in an hour", async () => {
    const statuses = await hammer(6, () =>
      api.post("/api/password/reset-password-link", { email: "ghost@example.com" }),
    );
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(statuses[5]).toBe(429);
  });

  it("leaves other routes alone", async () => {
    const statuses = await hammer(30, () => api.get("/healthz"));
    expect(statuses.every((status) => status === 200)).toBe(true);
  });
});

describe("behind one reverse proxy (TRUST_PROXY=1)", () => {
  it("counts the address the proxy saw, whatever a client writes before it in X-Forwarded-For", async () => {
    const proxied = await startTestServer({ RATE_LIMITS: "on", TRUST_PROXY: "1" });
    try {
      const proxiedApi = client(proxied.url);
      // The proxy appends the address it saw (here the same every time) to what the client sent.
      const loginFrom = (claimed: string, seen: string) =>
        proxiedApi.post(
          "/api/auth/login",
          { email: `someone${claimed}@example.com`, password: "Guess!1234" },
          { headers: { "x-forwarded-for": `${claimed}, ${seen}` } },
        );
      const statuses = await hammer(11, () =>
        loginFrom(`198.51.100.${String(Math.floor(Math.random() * 250))}`, "203.0.113.9"),
      );
      expect(statuses.slice(0, 10).every((status) => status === 400)).toBe(true);
      expect(statuses[10]).toBe(429);
      // Another visitor behind the same proxy is counted apart.
      expect((await loginFrom("198.51.100.1", "203.0.113.10")).status).toBe(400);
    } finally {
      await proxied.close();
    }
  });
});

describe("RATE_LIMITS=off", () => {
  it("lets test suites and benchmarks through", async () => {
    const open = await startTestServer({ RATE_LIMITS: "off" });
    try {
      const openApi = client(open.url);
      const statuses = await hammer(15, () => openApi.post("/api/auth/register", {}));
      expect(statuses.every((status) => status === 400)).toBe(true);
    } finally {
      await open.close();
    }
  });
});
