import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SESSION_TTL_MS } from "../../core/auth/sessions.js";
import type { Clock } from "../../core/shared/clock.js";
import { buildUser } from "../support/factories.js";
import { client, type Client } from "../support/http.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

// Revocation (logout, password change and reset, deletion by the owner or an admin) has its tests
// beside each route: auth, users, password-reset and delete-user. This file moves the clock.

let now = Date.parse("2031-03-01T12:00:00Z");
const clock: Clock = () => new Date(now);

let server: TestServer;
let api: Client;

beforeAll(async () => {
  server = await startTestServer({}, { clock });
  api = client(server.url);
});
afterAll(() => server.close());

describe("a session token", () => {
  it("works until the last moment of its 30 days, and from then on answers 401", async () => {
    expect(SESSION_TTL_MS).toBe(30 * 24 * 60 * 60 * 1000);
    const user = await buildUser(server, api);
    const profile = () => api.get(`/api/users/profile/${user.id}`, { token: user.token });
    const signedIn = async () => {
      const reply = await api.get<{ email?: string }>(`/api/users/profile/${user.id}`, {
        token: user.token,
      });
      return reply.body.email === user.email;
    };
    const protectedCall = () => api.post("/api/auth/logout", undefined, { token: user.token });
    expect(await signedIn()).toBe(true);

    now += SESSION_TTL_MS - 1;
    expect(await signedIn()).toBe(true);

    now += 1;
    expect(await signedIn()).toBe(false);
    expect((await profile()).status).toBe(200); // still readable, as a visitor
    const refused = await protectedCall();
    expect(refused.status).toBe(401);
    expect(refused.body).toHaveProperty("message");
  });

  it("is not lengthened by use: a token used every day still ends 30 days after sign-in", async () => {
    const user = await buildUser(server, api);
    const call = () => api.get("/api/users/count", { token: user.token });
    for (let day = 0; day < 30; day += 1) {
      expect((await call()).status).toBe(403); // signed in, not an admin
      now += 24 * 60 * 60 * 1000;
    }
    expect((await call()).status).toBe(401);
  });

  it("lets the same account sign in again after expiry, with a new token", async () => {
    const user = await buildUser(server, api);
    now += SESSION_TTL_MS;
    const reply = await api.post<{ token: string }>("/api/auth/login", {
      email: user.email,
      password: user.password,
    });
    expect(reply.status).toBe(200);
    expect(reply.body.token).not.toBe(user.token);
    expect((await api.get("/api/users/count", { token: reply.body.token })).status).toBe(403);
    expect((await api.get("/api/users/count", { token: user.token })).status).toBe(401);
  });
});
