import { describe, expect, it } from "vitest";
import { buildUser, PASSWORD } from "../support/factories.js";
import { mailedLink, readOutbox } from "../support/mail.js";
import { openTestSite } from "../support/site.js";

const { server, api } = await openTestSite();

const valid = { username: "alice", email: "Alice@Example.com", password: "Str0ng!pass" };

describe("POST /api/auth/register", () => {
  it.each([
    [{ ...valid, username: undefined }, "username", "Username is required"],
    [{ ...valid, username: "" }, "username", "Username is required"],
    [{ ...valid, username: 42 }, "username", "Username is required"],
    [
      { ...valid, username: "al ice" },
      "username",
      "Username should contain only alphanumeric characters",
    ],
    [
      { ...valid, username: "<script>" },
      "username",
      "Username should contain only alphanumeric characters",
    ],
    [
      { ...valid, username: "a".repeat(16) },
      "username",
      "Username must be at most 15 characters long",
    ],
    [{ ...valid, email: undefined }, "email", "Email is required"],
    [{ ...valid, email: "  " }, "email", "Email is required"],
    [{ ...valid, email: "alice" }, "email", "Invalid email address"],
    [{ ...valid, email: "alice@example" }, "email", "Invalid email address"],
    [{ ...valid, password: undefined }, "password", "Password is required"],
    [
      { ...valid, password: "Sh0rt!" },
      "password",
      "Must contain 8 characters, one uppercase, one lowercase, one number and one special character",
    ],
    [
      { ...valid, password: "nouppercase1!" },
      "password",
      "Must contain 8 characters, one uppercase, one lowercase, one number and one special character",
    ],
    [
      { ...valid, password: "NOLOWERCASE1!" },
      "password",
      "Must contain 8 characters, one uppercase, one lowercase, one number and one special character",
    ],
    [
      { ...valid, password: "NoDigits!!" },
      "password",
      "Must contain 8 characters, one uppercase, one lowercase, one number and one special character",
    ],
    [
      { ...valid, password: "NoSpecial12" },
      "password",
      "Must contain 8 characters, one uppercase, one lowercase, one number and one special character",
    ],
  ])("refuses %j with 400 on %s", async (body, field, message) => {
    const reply = await api.post("/api/auth/register", body);
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ message, errors: { [field]: message } });
  });

  it("creates nothing for a refused sign-up", async () => {
    await api.post("/api/auth/register", {
      ...valid,
      email: "refused@example.com",
      password: "weak",
    });
    const row = await server.app.deps.db
      .selectFrom("users")
      .select("id")
      .where("email_key", "=", "refused@example.com")
      .executeTakeFirst();
    expect(row).toBeUndefined();
  });

  it("signs up, ignores isAdmin and isVerified, and mails a verification link", async () => {
    const reply = await api.post("/api/auth/register", {
      ...valid,
      isAdmin: true,
      isVerified: true,
    });
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({
      message: "We sent you an email, please verify your email address",
    });

    const user = await server.app.deps.db
      .selectFrom("users")
      .selectAll()
      .where("email_key", "=", "alice@example.com")
      .executeTakeFirstOrThrow();
    expect(user.is_admin).toBe(0);
    expect(user.is_verified).toBe(0);
    expect(user.password_hash).toMatch(/^\$argon2id\$/);

    const link = await mailedLink(server.dataDir, "Alice@Example.com", "verify");
    expect(link.origin).toBe(server.config.publicUrl);
    expect(link.pathname).toMatch(new RegExp(`^/api/auth/${user.id}/verify/[A-Za-z0-9_-]{43}$`));
  });

  it("answers 409 for an address already taken, whatever its case", async () => {
    for (const email of ["alice@example.com", "ALICE@EXAMPLE.COM", " alice@example.COM "]) {
      const reply = await api.post("/api/auth/register", { ...valid, email });
      expect(reply.status).toBe(409);
      expect(reply.body).toEqual({ message: "User already exists" });
    }
  });

  it("keeps exactly one account when the same address signs up twice at once", async () => {
    const body = { ...valid, username: "racer", email: "racer@example.com" };
    const replies = await Promise.all([1, 2, 3].map(() => api.post("/api/auth/register", body)));
    expect(replies.map((r) => r.status).sort()).toEqual([201, 409, 409]);
  });
});

describe("the sign-up journey", () => {
  const person = { username: "bob", email: "bob@example.com", password: "B0b!secret" };

  it("refuses login before verification with 403, and mails a fresh link", async () => {
    await api.post("/api/auth/register", person);
    const before = (await readOutbox(server.dataDir)).length;
    const reply = await api.post("/api/auth/login", {
      email: person.email,
      password: person.password,
    });
    expect(reply.status).toBe(403);
    expect(reply.body).toEqual({
      message: "We sent you an email, please verify your email address",
    });
    expect((await readOutbox(server.dataDir)).length).toBe(before + 1);
  });

  it("does not mail a fresh link for a wrong password", async () => {
    const before = (await readOutbox(server.dataDir)).length;
    const reply = await api.post("/api/auth/login", {
      email: person.email,
      password: "Wrong!pass1",
    });
    expect(reply.status).toBe(400);
    expect((await readOutbox(server.dataDir)).length).toBe(before);
  });

  it("refuses a verification link that was tampered with", async () => {
    const link = await mailedLink(server.dataDir, person.email, "verify");
    const [, , , userId] = link.pathname.split("/");
    for (const path of [
      `/api/auth/${userId ?? ""}/verify/${"x".repeat(43)}`,
      `/api/auth/not-an-id/verify/abc`,
      `/api/auth/00000000-0000-4000-8000-000000000000/verify/${link.pathname.split("/").at(-1) ?? ""}`,
    ]) {
      const reply = await api.get(path);
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual({ message: "Invalid link" });
    }
  });

  it("verifies through the mailed link, once", async () => {
    const link = await mailedLink(server.dataDir, person.email, "verify");
    const first = await api.get(link.pathname);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ message: "Your email address has been successfully verified" });
    const again = await api.get(link.pathname);
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ message: "Invalid link" });
  });

  it("logs in once verified and answers the public user with a token", async () => {
    const reply = await api.post("/api/auth/login", {
      email: "BOB@example.com",
      password: person.password,
    });
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body).sort()).toEqual(
      ["_id", "id", "username", "profilePhoto", "isAdmin", "token"].sort(),
    );
    expect(reply.body).toMatchObject({
      username: "bob",
      isAdmin: false,
      profilePhoto: { url: `${server.config.publicUrl}/images/default-avatar.svg` },
    });
    const avatar = await fetch(`${server.url}/images/default-avatar.svg`);
    expect(avatar.status).toBe(200);
  });
});

describe("POST /api/auth/login", () => {
  it.each([
    [{ password: PASSWORD }, "email", "Email is required"],
    [{ email: "nope", password: PASSWORD }, "email", "Please enter a valid email address"],
    [{ email: "a@b.co" }, "password", "Password is required"],
    [{ email: "a@b.co", password: "" }, "password", "Password is required"],
  ])("refuses %j with 400 on %s", async (body, field, message) => {
    const reply = await api.post("/api/auth/login", body);
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ message, errors: { [field]: message } });
  });

  it("gives the same answer for an unknown address and a wrong password", async () => {
    const user = await buildUser(server, api);
    const unknown = await api.post("/api/auth/login", {
      email: "ghost@example.com",
      password: PASSWORD,
    });
    const wrong = await api.post("/api/auth/login", { email: user.email, password: "Wrong!pass1" });
    expect(unknown.status).toBe(400);
    expect(wrong.status).toBe(400);
    expect(unknown.body).toEqual({ message: "Invalid email or password" });
    expect(wrong.body).toEqual(unknown.body);
  });
});

describe("sessions", () => {
  it("refuses protected calls without a token, with a malformed one and with an unknown one", async () => {
    for (const authorization of [undefined, "Bearer", "Basic abc", `Bearer ${"z".repeat(43)}`]) {
      const reply = await api.get("/api/users/count", {
        headers: authorization ? { authorization } : {},
      });
      expect(reply.status).toBe(401);
      expect(reply.body).toHaveProperty("message");
    }
  });

  it("ends the session on logout, and only that session", async () => {
    const user = await buildUser(server, api);
    const other = await api.post<{ token: string }>("/api/auth/login", {
      email: user.email,
      password: user.password,
    });
    expect((await api.post("/api/auth/logout", undefined)).status).toBe(401);

    const out = await api.post("/api/auth/logout", undefined, { token: user.token });
    expect(out.status).toBe(204);
    const after = await api.put(`/api/users/profile/${user.id}`, {}, { token: user.token });
    expect(after.status).toBe(401);
    const stillIn = await api.put(`/api/users/profile/${user.id}`, {}, { token: other.body.token });
    expect(stillIn.status).toBe(400);
  });

  it("stores tokens only hashed", async () => {
    const user = await buildUser(server, api);
    const rows = await server.app.deps.db
      .selectFrom("sessions")
      .select("token_hash")
      .where("user_id", "=", user.id)
      .execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]?.token_hash).not.toContain(user.token);
    expect(rows[0]?.token_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("expires a session after its lifetime", async () => {
    const user = await buildUser(server, api);
    const probe = () => api.put(`/api/users/profile/${user.id}`, {}, { token: user.token });
    expect((await probe()).status).toBe(400);
    const row = await server.app.deps.db
      .selectFrom("sessions")
      .select("expires_at")
      .where("user_id", "=", user.id)
      .executeTakeFirstOrThrow();
    const lifetimeDays = (Date.parse(row.expires_at) - Date.now()) / 86_400_000;
    expect(lifetimeDays).toBeGreaterThan(29.9);
    expect(lifetimeDays).toBeLessThanOrEqual(30);
    await server.app.deps.db
      .updateTable("sessions")
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where("user_id", "=", user.id)
      .execute();
    expect((await probe()).status).toBe(401);
  });

  it("reads the admin flag from the database on every request", async () => {
    const user = await buildUser(server, api);
    expect((await api.get("/api/users/count", { token: user.token })).status).toBe(403);
    await server.app.deps.db
      .updateTable("users")
      .set({ is_admin: 1 })
      .where("id", "=", user.id)
      .execute();
    expect((await api.get("/api/users/count", { token: user.token })).status).toBe(200);
    await server.app.deps.db
      .updateTable("users")
      .set({ is_admin: 0 })
      .where("id", "=", user.id)
      .execute();
    expect((await api.get("/api/users/count", { token: user.token })).status).toBe(403);
  });
});
