import { describe, expect, it } from "vitest";
import { mailedLink, readOutbox } from "../support/mail.js";
import { openTestSite } from "../support/site.js";

const {
  server,
  api,
  users: { user },
} = await openTestSite({ users: ["user"] });

const WEAK =
  "Must contain 8 characters, one uppercase, one lowercase, one number and one special character";
const SENT = { message: "Password reset link sent to your email, please check your inbox" };

/** The API path of the mailed reset link: the page /reset-password/{id}/{token} calls it. */
async function resetPath(email: string) {
  const link = await mailedLink(server.dataDir, email, "reset");
  expect(link.origin).toBe(server.config.publicUrl);
  expect(link.pathname).toMatch(/^\/reset-password\/[0-9a-f-]{36}\/[A-Za-z0-9_-]{43}$/);
  return `/api/password${link.pathname}`;
}

describe("POST /api/password/reset-password-link", () => {
  it.each([
    [{}, "Email is required"],
    [{ email: "" }, "Email is required"],
    [{ email: "not-an-address" }, "Invalid email address"],
  ])("refuses %j with 400", async (body, message) => {
    const reply = await api.post("/api/password/reset-password-link", body);
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ message, errors: { email: message } });
  });

  it("answers an unknown address exactly as a known one, and mails nobody", async () => {
    const before = await readOutbox(server.dataDir);
    const reply = await api.post("/api/password/reset-password-link", {
      email: "ghost@example.com",
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(SENT);
    expect(await readOutbox(server.dataDir)).toHaveLength(before.length);
  });

  it("mails a reset link to a known address, whatever its case", async () => {
    const reply = await api.post("/api/password/reset-password-link", {
      email: user.email.toUpperCase(),
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(SENT);
    await resetPath(user.email);
  });
});

describe("the reset link", () => {
  it("is refused when tampered with", async () => {
    const path = await resetPath(user.email);
    const bad = [
      path.replace(/[^/]+$/, "x".repeat(43)),
      path.replace(/reset-password\/[^/]+/, "reset-password/not-an-id"),
      path.replace(/reset-password\/[^/]+/, "reset-password/00000000-0000-4000-8000-000000000000"),
    ];
    for (const candidate of bad) {
      const check = await api.get(candidate);
      expect(check.status).toBe(400);
      expect(check.body).toEqual({ message: "Invalid link" });
      const use = await api.post(candidate, { password: "N3w!password" });
      expect(use.status).toBe(400);
      expect(use.body).toEqual({ message: "Invalid link" });
    }
  });

  it("checks a new password with the sign-up rule and keeps the link on refusal", async () => {
    const path = await resetPath(user.email);
    for (const [body, message] of [
      [{}, "Password is required"],
      [{ password: "" }, "Password is required"],
      [{ password: "weakpass" }, WEAK],
    ] as const) {
      const reply = await api.post(path, body);
      expect(reply.status).toBe(400);
      expect(reply.body).toMatchObject({ message, errors: { password: message } });
    }
    expect((await api.get(path)).status).toBe(200);
  });

  it("sets the password once, ends every session and lets the new password in", async () => {
    const path = await resetPath(user.email);
    expect(await api.get(path)).toMatchObject({ status: 200, body: { message: "Valid url" } });

    const reply = await api.post(path, { password: "N3w!password" });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ message: "Password reset successfully, please log in" });

    expect((await api.get("/api/users/profile/" + user.id, { token: user.token })).status).toBe(
      200,
    );
    expect((await api.post("/api/auth/logout", undefined, { token: user.token })).status).toBe(401);
    const old = await api.post("/api/auth/login", { email: user.email, password: user.password });
    expect(old.status).toBe(400);
    const fresh = await api.post("/api/auth/login", {
      email: user.email,
      password: "N3w!password",
    });
    expect(fresh.status).toBe(200);

    expect((await api.get(path)).status).toBe(400);
    expect((await api.post(path, { password: "An0ther!pass" })).status).toBe(400);
  });

  it("stops working when a newer link is sent", async () => {
    await api.post("/api/password/reset-password-link", { email: user.email });
    const older = await resetPath(user.email);
    await api.post("/api/password/reset-password-link", { email: user.email });
    const newer = await resetPath(user.email);
    expect(newer).not.toBe(older);
    expect((await api.get(older)).status).toBe(400);
    expect((await api.get(newer)).status).toBe(200);
  });

  it("expires after one hour", async () => {
    await api.post("/api/password/reset-password-link", { email: user.email });
    const path = await resetPath(user.email);
    const row = await server.app.deps.db
      .selectFrom("verification_tokens")
      .select(["id", "created_at", "expires_at"])
      .where("user_id", "=", user.id)
      .where("kind", "=", "password")
      .executeTakeFirstOrThrow();
    expect(Date.parse(row.expires_at) - Date.parse(row.created_at)).toBe(60 * 60 * 1000);
    await server.app.deps.db
      .updateTable("verification_tokens")
      .set({ expires_at: new Date(Date.now() - 1).toISOString() })
      .where("id", "=", row.id)
      .execute();
    expect((await api.get(path)).status).toBe(400);
    expect((await api.post(path, { password: "N3w!password2" })).status).toBe(400);
  });

  it("verifies the address of an account that never clicked its verification mail", async () => {
    const email = "late@example.com";
    await api.post("/api/auth/register", { username: "late", email, password: "L4te!pass" });
    await api.post("/api/password/reset-password-link", { email });
    const reply = await api.post(await resetPath(email), { password: "L4te!pass2" });
    expect(reply.status).toBe(200);
    const login = await api.post("/api/auth/login", { email, password: "L4te!pass2" });
    expect(login.status).toBe(200);
  });
});
