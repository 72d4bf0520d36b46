import { execFile } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Clock } from "../../core/shared/clock.js";
import { ensureAdmin, StartupRefusal } from "../../core/users/bootstrap-admin.js";
import { RECENT_SIGN_IN_MS } from "../../core/users/users-service.js";
import { buildUser, loginAs, type TestUser } from "../support/factories.js";
import { client, type Client } from "../support/http.js";
import { lastMailTo, mailedLink, readOutbox } from "../support/mail.js";
import { failOnServerErrors } from "../support/server-errors.js";
import { ADMIN_EMAIL, startTestServer, type TestServer } from "../support/test-server.js";
import { type ErrorBody } from "../support/post-fixtures.js";

// Issue 14, points 1 and 2: an e-mail change waits for the new address to confirm it, start-up
// promotes only an account that proved its address, and changing the e-mail or the password asks
// for the current password unless the session signed in moments ago.

let now = Date.parse("2031-05-01T09:00:00Z");
const clock: Clock = () => new Date(now);

let server: TestServer;
let api: Client;

beforeAll(async () => {
  server = await startTestServer({}, { clock });
  api = client(server.url);
});
afterAll(() => server.close());
failOnServerErrors(() => server);

interface Profile {
  email?: string;
  pendingEmail?: string;
  username: string;
}
const profilePath = (id: string) => `/api/users/profile/${id}`;
const edit = (user: TestUser, changes: Record<string, string> = {}) => ({
  username: user.username,
  email: user.email,
  bio: "Writes about databases",
  socialMedia: [],
  ...changes,
});

/** Lets this session's sign-in grow older than the window in which it stands in for a password. */
const ageSessions = () => {
  now += RECENT_SIGN_IN_MS + 1000;
};

describe("changing the e-mail", () => {
  it("keeps the old address until the new one opens the mailed link, and tells the old one", async () => {
    const user = await buildUser(server, api);
    const email = `new.${user.username}@example.org`;
    const reply = await api.put<Profile>(profilePath(user.id), edit(user, { email }), {
      token: user.token,
    });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({ email: user.email, pendingEmail: email });

    // Nothing moved yet: the old address signs in, the new one does not.
    await loginAs(api, user.email, user.password);
    const early = await api.post("/api/auth/login", { email, password: user.password });
    expect(early.status).toBe(400);
    const mine = await api.get<Profile>(profilePath(user.id), { token: user.token });
    expect(mine.body).toMatchObject({ email: user.email, pendingEmail: email });
    const visitor = await api.get<Profile>(profilePath(user.id));
    expect(visitor.body).not.toHaveProperty("pendingEmail");
    expect(visitor.body).not.toHaveProperty("email");

    const notice = await lastMailTo(server.dataDir, user.email);
    expect(notice.text).toContain(email);
    expect(notice.links.some((link) => link.endsWith("/forgot-password"))).toBe(true);

    const link = await mailedLink(server.dataDir, email, "verify");
    const opened = await api.get(link.pathname);
    expect(opened.status, opened.text).toBe(200);
    expect(opened.body).toEqual({ message: "Your email address has been successfully verified" });
    expect((await api.get(link.pathname)).status).toBe(400);

    await loginAs(api, email, user.password);
    const old = await api.post("/api/auth/login", { email: user.email, password: user.password });
    expect(old.status).toBe(400);
    const after = await api.get<Profile>(profilePath(user.id), { token: user.token });
    expect(after.body.email).toBe(email);
    expect(after.body).not.toHaveProperty("pendingEmail");
  });

  it("answers 409 at the link when another account took the address meanwhile", async () => {
    const first = await buildUser(server, api);
    const second = await buildUser(server, api);
    const email = `contested.${first.username}@example.com`;
    for (const user of [first, second]) {
      const reply = await api.put(profilePath(user.id), edit(user, { email }), {
        token: user.token,
      });
      expect(reply.status, reply.text).toBe(200);
    }
    const mails = (await readOutbox(server.dataDir)).filter((mail) => mail.to.includes(email));
    const links = mails.flatMap((mail) => mail.links).filter((link) => link.includes("/verify/"));
    expect(links).toHaveLength(2);
    const replies = await Promise.all(links.map((link) => api.get(new URL(link).pathname)));
    expect(replies.map((reply) => reply.status).sort()).toEqual([200, 409]);
    expect(replies.find((reply) => reply.status === 409)?.body).toEqual({
      message: "Email is already in use",
    });
    const owners = await server.app.deps.db
      .selectFrom("users")
      .select("id")
      .where("email_key", "=", email)
      .execute();
    expect(owners).toHaveLength(1);
  });
});

describe("a pending e-mail change, and the links that could outlive their address", () => {
  async function requestChange(user: TestUser) {
    const email = `pending.${user.username}@example.net`;
    const reply = await api.put(profilePath(user.id), edit(user, { email }), { token: user.token });
    expect(reply.status, reply.text).toBe(200);
    return { email, link: await mailedLink(server.dataDir, email, "verify") };
  }

  it("is cancelled by a password reset, as the notice to the old address advises", async () => {
    const user = await buildUser(server, api);
    const change = await requestChange(user);
    await api.post("/api/password/reset-password-link", { email: user.email });
    const reset = await mailedLink(server.dataDir, user.email, "reset");
    const done = await api.post(
      `/api${reset.pathname.replace("/reset-password", "/password/reset-password")}`,
      {
        password: "Brand-New1!",
      },
    );
    expect(done.status, done.text).toBe(200);
    expect((await api.get(change.link.pathname)).status).toBe(400);
    const row = await server.app.deps.db
      .selectFrom("users")
      .select("email")
      .where("id", "=", user.id)
      .executeTakeFirstOrThrow();
    expect(row.email).toBe(user.email);
  });

  it("is cancelled by a new password set on the profile", async () => {
    const user = await buildUser(server, api);
    const change = await requestChange(user);
    const reply = await api.put(profilePath(user.id), edit(user, { password: "changed1" }), {
      token: user.token,
    });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).not.toHaveProperty("pendingEmail");
    expect((await api.get(change.link.pathname)).status).toBe(400);
  });

  it("keeps start-up from promoting an account that is moving away from ADMIN_EMAIL", async () => {
    const user = await buildUser(server, api);
    await requestChange(user);
    await expect(ensureAdmin(server.app.deps, { email: user.email })).rejects.toBeInstanceOf(
      StartupRefusal,
    );
  });

  it("proves with a sign-up link only the address it was mailed to", async () => {
    const email = `signup${String(Date.now())}@example.com`;
    await api.post("/api/auth/register", { username: "mover", email, password: "Mover-1!x" });
    const link = await mailedLink(server.dataDir, email, "verify");
    // However the address came to change meanwhile (data from before these rules), the link no
    // longer speaks for the account.
    await server.app.deps.db
      .updateTable("users")
      .set({ email: ADMIN_EMAIL.replace("@", "+x@"), email_key: ADMIN_EMAIL.replace("@", "+x@") })
      .where("email_key", "=", email)
      .execute();
    expect((await api.get(link.pathname)).status).toBe(400);
  });

  it("lets an account named before the username rule keep its name and edit the rest", async () => {
    const user = await buildUser(server, api);
    await server.app.deps.db
      .updateTable("users")
      .set({ username: "old name" })
      .where("id", "=", user.id)
      .execute();
    const kept = await api.put(
      profilePath(user.id),
      { ...edit(user), username: "old name", bio: "Still here" },
      { token: user.token },
    );
    expect(kept.status, kept.text).toBe(200);
    const renamed = await api.put<ErrorBody>(
      profilePath(user.id),
      { ...edit(user), username: "new name" },
      { token: user.token },
    );
    expect(renamed.body.errors?.username).toBe(
      "Username should contain only alphanumeric characters",
    );
  });
});

describe("who you are, before the e-mail or the password changes", () => {
  it("needs the current password once the sign-in is older than 15 minutes", async () => {
    expect(RECENT_SIGN_IN_MS).toBe(15 * 60_000);
    const user = await buildUser(server, api);
    ageSessions();
    const changes: Record<string, string>[] = [
      { email: `asked.${user.username}@example.com` },
      { password: "newpass1" },
    ];
    for (const change of changes) {
      const missing = await api.put<ErrorBody>(profilePath(user.id), edit(user, change), {
        token: user.token,
      });
      expect(missing.status).toBe(400);
      expect(missing.body.errors).toEqual({
        currentPassword: "Enter your current password to change your email or password",
      });
      const wrong = await api.put<ErrorBody>(
        profilePath(user.id),
        edit(user, { ...change, currentPassword: "Not-it-1!" }),
        { token: user.token },
      );
      expect(wrong.status).toBe(400);
      expect(wrong.body.errors).toEqual({ currentPassword: "Current password is incorrect" });
    }
    // Refused edits changed nothing: no pending address, the old password still signs in.
    const mine = await api.get<Profile>(profilePath(user.id), { token: user.token });
    expect(mine.body).not.toHaveProperty("pendingEmail");
    await loginAs(api, user.email, user.password);

    const right = await api.put(
      profilePath(user.id),
      edit(user, { password: "newpass1", currentPassword: user.password }),
      { token: user.token },
    );
    expect(right.status, right.text).toBe(200);
    await loginAs(api, user.email, "newpass1");
  });

  it("asks nothing for the other fields, or right after signing in", async () => {
    const user = await buildUser(server, api);
    ageSessions();
    const bio = await api.put(profilePath(user.id), edit(user, { bio: "Only the bio" }), {
      token: user.token,
    });
    expect(bio.status, bio.text).toBe(200);
    const fresh = await loginAs(api, user.email, user.password);
    const password = await api.put(profilePath(user.id), edit(user, { password: "fresh12" }), {
      token: fresh,
    });
    expect(password.status, password.text).toBe(200);
  });
});

describe("the username on the profile", () => {
  it("follows the sign-up rule: letters and digits only", async () => {
    const user = await buildUser(server, api);
    for (const username of ["has space", "dash-ed", "<b>x</b>", "emoji😀"]) {
      const reply = await api.put<ErrorBody>(profilePath(user.id), edit(user, { username }), {
        token: user.token,
      });
      expect(reply.status, username).toBe(400);
      expect(reply.body.errors?.username, username).toBe(
        "Username should contain only alphanumeric characters",
      );
    }
  });
});

describe("start-up and ADMIN_EMAIL", () => {
  it("never promotes an account that did not prove the address, and stops saying why", async () => {
    const email = `claimed${String(Date.now())}@example.com`;
    const signUp = await api.post("/api/auth/register", {
      username: "claimer",
      email,
      password: "Claimer-1!",
    });
    expect(signUp.status).toBe(201);
    const refusal = ensureAdmin(server.app.deps, { email });
    await expect(refusal).rejects.toBeInstanceOf(StartupRefusal);
    await expect(refusal).rejects.toThrow(/ADMIN_EMAIL: .*has not confirmed this address/);
    const row = await server.app.deps.db
      .selectFrom("users")
      .select(["is_admin", "is_verified"])
      .where("email_key", "=", email)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ is_admin: 0, is_verified: 0 });

    // Once its owner opens the mailed link, the address is proven and start-up may promote it.
    const link = await mailedLink(server.dataDir, email, "verify");
    expect((await api.get(link.pathname)).status).toBe(200);
    await ensureAdmin(server.app.deps, { email });
    const promoted = await server.app.deps.db
      .selectFrom("users")
      .select("is_admin")
      .where("email_key", "=", email)
      .executeTakeFirstOrThrow();
    expect(promoted.is_admin).toBe(1);
  });

  it("refuses an account verified before its address changed (data from before this check)", async () => {
    const user = await buildUser(server, api);
    await server.app.deps.db
      .updateTable("users")
      .set({ verified_email_key: null })
      .where("id", "=", user.id)
      .execute();
    await expect(ensureAdmin(server.app.deps, { email: user.email })).rejects.toBeInstanceOf(
      StartupRefusal,
    );
  });

  it("lets nobody take the admin's address: the review's takeover, step by step", async () => {
    const admin = await api.post<{ token: string; _id: string }>("/api/auth/login", {
      email: ADMIN_EMAIL,
      password: "Admin-Pass1!",
    });
    const moved = `owner.moved${String(Date.now())}@example.com`;
    const change = await api.put(
      profilePath(admin.body._id),
      { username: "admin", email: moved, bio: "The owner", socialMedia: [] },
      { token: admin.body.token },
    );
    expect(change.status, change.text).toBe(200);
    expect(
      (await api.get((await mailedLink(server.dataDir, moved, "verify")).pathname)).status,
    ).toBe(200);
    // The freed address, claimed by a member through the profile: it never takes effect.
    const member = await buildUser(server, api);
    const claim = await api.put(profilePath(member.id), edit(member, { email: ADMIN_EMAIL }), {
      token: member.token,
    });
    expect(claim.status, claim.text).toBe(200);
    // The next start finds the address free and creates its own admin; the member stays a member.
    await ensureAdmin(server.app.deps, { email: ADMIN_EMAIL, password: "Admin-Pass1!" });
    const rows = await server.app.deps.db
      .selectFrom("users")
      .select(["id", "is_admin"])
      .where("email_key", "=", ADMIN_EMAIL)
      .execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]?.id).not.toBe(member.id);
    const memberRow = await server.app.deps.db
      .selectFrom("users")
      .select(["email_key", "is_admin"])
      .where("id", "=", member.id)
      .executeTakeFirstOrThrow();
    expect(memberRow).toEqual({ email_key: member.email, is_admin: 0 });
  });

  it("exits at start-up with the message, naming ADMIN_EMAIL", async () => {
    const email = `process${String(Date.now())}@example.com`;
    await api.post("/api/auth/register", { username: "proc", email, password: "Claimer-1!" });
    const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>(
      (resolve) => {
        const child = execFile(
          process.execPath,
          ["--import", "tsx", path.join(import.meta.dirname, "../../server/main.ts")],
          {
            env: {
              PATH: process.env.PATH ?? "",
              DATA_DIR: server.dataDir,
              ...(server.config.databaseUrl ? { DATABASE_URL: server.config.databaseUrl } : {}),
              PORT: "0",
              HOST: "127.0.0.1",
              LOG_LEVEL: "silent",
              ADMIN_EMAIL: email,
            },
          },
          (_error, _stdout, stderrText) => {
            resolve({ code: child.exitCode, stderr: stderrText });
          },
        );
      },
    );
    expect(code).toBe(1);
    expect(stderr).toMatch(/^ADMIN_EMAIL: process\d+@example\.com belongs to an account/);
    expect(stderr).not.toMatch(/\n\s+at /);
  });
});

describe("with rate limits on", () => {
  const limitedServer = async () => {
    const limited = await startTestServer({ RATE_LIMITS: "on" }, { clock });
    return { limited, limitedApi: client(limited.url) };
  };

  it("stops profile updates after 20 in 15 minutes, the 'already in use' answers included", async () => {
    const { limited, limitedApi } = await limitedServer();
    try {
      const user = await buildUser(limited, limitedApi);
      const other = await buildUser(limited, limitedApi);
      const statuses: number[] = [];
      for (let i = 0; i < 21; i += 1) {
        const reply = await limitedApi.put(
          profilePath(user.id),
          edit(user, { email: other.email }),
          { token: user.token },
        );
        statuses.push(reply.status);
      }
      expect(statuses.slice(0, 20).every((status) => status === 409)).toBe(true);
      expect(statuses[20]).toBe(429);
    } finally {
      await limited.close();
    }
  });

  it("counts wrong current passwords against the account's sign-in attempts", async () => {
    const { limited, limitedApi } = await limitedServer();
    try {
      const user = await buildUser(limited, limitedApi);
      ageSessions();
      const guess = () =>
        limitedApi.put<ErrorBody>(
          profilePath(user.id),
          edit(user, { password: "taken-over", currentPassword: "Guess-1!" }),
          { token: user.token },
        );
      for (let i = 0; i < 5; i += 1) expect((await guess()).status).toBe(400);
      const locked = await guess();
      expect(locked.status).toBe(429);
      expect(locked.body.message).toMatch(/^Too many failed sign-in attempts/);
      const login = await limitedApi.post("/api/auth/login", {
        email: user.email,
        password: user.password,
      });
      expect(login.status).toBe(429);
    } finally {
      await limited.close();
    }
  });
});
