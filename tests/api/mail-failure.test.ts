import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "../../core/auth/auth-service.js";
import { client, type Client } from "../support/http.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

let server: TestServer;
let api: Client;

// Port 9 (discard) on loopback has no listener here: every SMTP connection is refused at once.
beforeAll(async () => {
  server = await startTestServer({ SMTP_URL: "smtp://127.0.0.1:9" });
  api = client(server.url);
});
afterAll(() => server.close());

const FAILED = {
  message: "We could not send the e-mail just now. Please try again in a few minutes.",
};

describe("when mail cannot be sent", () => {
  it("undoes the sign-up so the person can simply try again", async () => {
    const body = { username: "carol", email: "carol@example.com", password: "C4rol!pass" };
    const first = await api.post("/api/auth/register", body);
    expect(first.status).toBe(503);
    expect(first.body).toEqual(FAILED);
    const row = await server.app.deps.db
      .selectFrom("users")
      .select("id")
      .where("email_key", "=", "carol@example.com")
      .executeTakeFirst();
    expect(row).toBeUndefined();
    const second = await api.post("/api/auth/register", body);
    expect(second.status).toBe(503);
  });

  it("says so when an unverified login or a reset link cannot be mailed", async () => {
    await createUser(server.app.deps, {
      username: "dave",
      email: "dave@example.com",
      password: "D4ve!pass",
    });
    const login = await api.post("/api/auth/login", {
      email: "dave@example.com",
      password: "D4ve!pass",
    });
    expect(login.status).toBe(503);
    expect(login.body).toEqual(FAILED);
    const reset = await api.post("/api/password/reset-password-link", {
      email: "dave@example.com",
    });
    expect(reset.status).toBe(503);
  });

  it("stores nothing of a profile edit whose e-mail change cannot be mailed", async () => {
    await createUser(server.app.deps, {
      username: "erin",
      email: "erin@example.com",
      password: "Er1n!pass",
      isVerified: true,
    });
    const signIn = await api.post<{ _id: string; token: string }>("/api/auth/login", {
      email: "erin@example.com",
      password: "Er1n!pass",
    });
    const { _id: id, token } = signIn.body;
    const reply = await api.put(
      `/api/users/profile/${id}`,
      { username: "erin", email: "erin@example.org", bio: "Changed", socialMedia: [] },
      { token },
    );
    expect(reply.status).toBe(503);
    expect(reply.body).toEqual(FAILED);
    const profile = await api.get(`/api/users/profile/${id}`, { token });
    expect(profile.body).toMatchObject({ email: "erin@example.com", bio: "" });
    expect(profile.body).not.toHaveProperty("pendingEmail");
  });
});
