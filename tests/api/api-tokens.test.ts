import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { integrationMessages as m, TOKENS_PER_USER_MAX } from "../../contract/integrations.js";
import type { Clock } from "../../core/shared/clock.js";
import { buildUser, signInAdmin, type TestUser } from "../support/factories.js";
import { client, type Client } from "../support/http.js";
import { lastMailTo, mailedLink, readOutbox } from "../support/mail.js";
import { addCategory, addPost } from "../support/post-fixtures.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

// Personal API tokens (DESIGN.md 10, "Integrations"; decision 025): made, listed and revoked with
// a session; `read` reads, `write` writes, and neither reaches account changes.

let now = Date.parse("2031-05-01T10:00:00Z");
const clock: Clock = () => new Date(now);

let server: TestServer;
let api: Client;
let admin: TestUser;

beforeAll(async () => {
  server = await startTestServer({}, { clock });
  api = client(server.url);
  admin = await signInAdmin(server, api);
  await addCategory(api, admin, "Notes");
});
afterAll(() => server.close());

interface NewToken {
  _id: string;
  name: string;
  scope: string;
  token: string;
  createdAt: string;
  lastUsedAt: string | null;
}

async function newToken(user: TestUser, scope: "read" | "write", name = `${scope} token`) {
  const reply = await api.post<NewToken>("/api/tokens", { name, scope }, { token: user.token });
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

/** The stored tokens of an account. */
const tokenRows = (userId: string) =>
  server.app.deps.db.selectFrom("api_tokens").select("id").where("user_id", "=", userId).execute();

/** A fresh member with a read and a write token. */
async function member() {
  const user = await buildUser(server, api);
  const read = await newToken(user, "read");
  const write = await newToken(user, "write");
  return { user, read: read.token, write: write.token, readId: read._id, writeId: write._id };
}

describe("creating a token", () => {
  it("needs a session: 401 without one, 403 with an API token", async () => {
    const anonymous = await api.post("/api/tokens", { name: "x", scope: "read" });
    expect(anonymous.status).toBe(401);
    const { write, read } = await member();
    const withWrite = await api.post(
      "/api/tokens",
      { name: "x", scope: "write" },
      { token: write },
    );
    expect(withWrite.status, withWrite.text).toBe(403);
    expect(withWrite.body).toMatchObject({ message: m.notWithToken });
    // A read token is refused sooner: it writes nothing at all.
    const withRead = await api.post("/api/tokens", { name: "x", scope: "read" }, { token: read });
    expect(withRead.status, withRead.text).toBe(403);
    expect(withRead.body).toMatchObject({ message: m.readOnlyToken });
  });

  it("answers 400 for a missing or long name and an unknown scope", async () => {
    const user = await buildUser(server, api);
    const cases: [unknown, string][] = [
      [{ scope: "read" }, m.tokenNameRequired],
      [{ name: "   ", scope: "read" }, m.tokenNameRequired],
      [{ name: "x".repeat(61), scope: "read" }, m.tokenNameTooLong],
      [{ name: "ci" }, m.tokenScope],
      [{ name: "ci", scope: "admin" }, m.tokenScope],
      [{ name: "ci", scope: "READ" }, m.tokenScope],
    ];
    for (const [body, message] of cases) {
      const reply = await api.post("/api/tokens", body, { token: user.token });
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body).toMatchObject({ message });
    }
  });

  it("needs a sign-in within 15 minutes (403), as adding a passkey does", async () => {
    const user = await buildUser(server, api);
    now += 16 * 60_000;
    const reply = await api.post(
      "/api/tokens",
      { name: "ci", scope: "read" },
      { token: user.token },
    );
    expect(reply.status, reply.text).toBe(403);
    expect(reply.body).toMatchObject({ message: m.signInAgain });
  });

  it(`stops at ${String(TOKENS_PER_USER_MAX)} tokens (409)`, async () => {
    const user = await buildUser(server, api);
    for (let i = 0; i < TOKENS_PER_USER_MAX; i += 1) await newToken(user, "read", `t${String(i)}`);
    const reply = await api.post(
      "/api/tokens",
      { name: "one more", scope: "read" },
      { token: user.token },
    );
    expect(reply.status).toBe(409);
    expect(reply.body).toMatchObject({ message: m.tooManyTokens });
  });

  it("shows the token once and stores only its hash", async () => {
    const user = await buildUser(server, api);
    const made = await newToken(user, "write", "  deploy from CI  ");
    expect(made).toMatchObject({ name: "deploy from CI", scope: "write", lastUsedAt: null });
    expect(made.token).toMatch(/^blog_[A-Za-z0-9_-]{43}$/);
    const list = await api.get<Record<string, unknown>[]>("/api/tokens", { token: user.token });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([
      {
        _id: made._id,
        name: "deploy from CI",
        scope: "write",
        createdAt: made.createdAt,
        lastUsedAt: null,
      },
    ]);
    expect(list.text).not.toContain(made.token);
    const rows = await server.app.deps.db.selectFrom("api_tokens").selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(made.token);
    expect(JSON.stringify(rows)).not.toContain(made.token.slice(5));
  });
});

describe("the owner's mail", () => {
  it("tells of every new token: its name, what it may do, and where the list is", async () => {
    const user = await buildUser(server, api);
    const before = (await readOutbox(server.dataDir)).length;
    await newToken(user, "write", "Deploy bot");
    const mail = await lastMailTo(server.dataDir, user.email);
    expect(mail.subject).toContain("A new API token");
    expect(mail.text).toContain("“Deploy bot”, read and write");
    expect(mail.text).toContain(`${server.config.publicUrl}/settings#api-tokens`);
    await newToken(user, "read", "Reader");
    expect((await lastMailTo(server.dataDir, user.email)).text).toContain("“Reader”, read only");
    expect((await readOutbox(server.dataDir)).length).toBe(before + 2);
  });

  it("is not sent for a token refused", async () => {
    const user = await buildUser(server, api);
    const before = (await readOutbox(server.dataDir)).length;
    const refused = await api.post(
      "/api/tokens",
      { name: "", scope: "read" },
      { token: user.token },
    );
    expect(refused.status).toBe(400);
    expect((await readOutbox(server.dataDir)).length).toBe(before);
  });
});

describe("using a token", () => {
  it("answers 401 for a revoked, unknown or malformed token", async () => {
    const { user, read, readId } = await member();
    const revoked = await api.delete(`/api/tokens/${readId}`, { token: user.token });
    expect(revoked.status).toBe(204);
    for (const token of [read, `blog_${"A".repeat(43)}`]) {
      const reply = await api.get("/api/users/me/settings", { token });
      expect(reply.status, token).toBe(401);
      expect(reply.body).toMatchObject({ message: m.tokenInvalid });
    }
    // Not even shaped like a token: as any malformed bearer.
    for (const token of ["blog_short", "blog_", `${read}x`]) {
      expect((await api.get("/api/users/me/settings", { token })).status).toBe(401);
    }
  });

  it("a read token reads and is refused everything else (403)", async () => {
    const { user, read } = await member();
    const own = await api.get("/api/users/me/settings", { token: read });
    expect(own.status, own.text).toBe(200);
    const profile = await api.get<{ email?: string }>(`/api/users/profile/${user.id}`, {
      token: read,
    });
    expect(profile.body.email).toBe(user.email);
    const post = await addPost(api, user, { category: "Notes" });
    const refused = [
      api.post(
        "/api/posts",
        { title: "Hello", category: "Notes", description: "Body", status: "draft" },
        { token: read },
      ),
      api.put(
        `/api/posts/${post._id}`,
        { title: "Changed", category: "Notes", description: "Body" },
        { token: read },
      ),
      api.delete(`/api/posts/${post._id}`, { token: read }),
      api.put(`/api/posts/like/${post._id}`, undefined, { token: read }),
      api.post("/api/comments", { postId: post._id, text: "Hi" }, { token: read }),
    ];
    for (const reply of await Promise.all(refused)) {
      expect(reply.status, reply.text).toBe(403);
      expect(reply.body).toMatchObject({ message: m.readOnlyToken });
    }
    const still = await api.get<{ title: string }>(`/api/posts/${post._id}`);
    expect(still.body.title).toBe(post.title);
  });

  it("a write token acts as its owner, and only as its owner", async () => {
    const { user, write } = await member();
    const other = await buildUser(server, api);
    const theirs = await addPost(api, other, { category: "Notes" });
    const created = await api.post<{ _id: string; user: { _id: string } }>(
      "/api/posts",
      { title: "From a script", category: "Notes", description: "Written by CI.", status: "draft" },
      { token: write },
    );
    expect(created.status, created.text).toBe(201);
    expect(created.body.user._id).toBe(user.id);
    const edited = await api.put(
      `/api/posts/${created.body._id}`,
      { title: "From a script, edited", category: "Notes", description: "Written by CI." },
      { token: write },
    );
    expect(edited.status, edited.text).toBe(200);
    const notMine = await api.put(
      `/api/posts/${theirs._id}`,
      { title: "Taken over", category: "Notes", description: "No." },
      { token: write },
    );
    expect(notMine.status).toBe(403);
    const comment = await api.post(
      "/api/comments",
      { postId: theirs._id, text: "Nice one" },
      { token: write },
    );
    expect(comment.status, comment.text).toBe(201);
  });

  it("never reaches account changes (403), whatever its scope", async () => {
    const { user, write, writeId } = await member();
    const t = { token: write };
    const calls = [
      api.post("/api/tokens", { name: "more", scope: "write" }, t),
      api.get("/api/tokens", t),
      api.delete(`/api/tokens/${writeId}`, t),
      api.post("/api/auth/2fa/setup", undefined, t),
      api.post("/api/auth/2fa/enable", { code: "123456" }, t),
      api.post("/api/auth/2fa/disable", { currentPassword: user.password }, t),
      api.post("/api/auth/passkeys/register/options", {}, t),
      api.get("/api/auth/passkeys", t),
      api.get("/api/auth/sessions", t),
      api.post("/api/auth/sessions/revoke-others", undefined, t),
      api.post("/api/auth/logout", undefined, t),
      api.delete(`/api/users/profile/${user.id}`, t),
      api.put(
        `/api/users/profile/${user.id}`,
        {
          username: user.username,
          email: "elsewhere@example.com",
          bio: "b",
          currentPassword: user.password,
        },
        t,
      ),
      api.put(
        `/api/users/profile/${user.id}`,
        {
          username: user.username,
          email: user.email,
          bio: "b",
          password: "New-Pass1!x",
          currentPassword: user.password,
        },
        t,
      ),
    ];
    for (const reply of await Promise.all(calls)) {
      expect(reply.status, reply.text).toBe(403);
      expect(reply.body).toMatchObject({ message: m.notWithToken });
    }
    // The account is as it was: the token still works, the session too, the e-mail unchanged.
    const me = await api.get<{ email: string }>(`/api/users/profile/${user.id}`, {
      token: user.token,
    });
    expect(me.body.email).toBe(user.email);
    // What others see may change through a write token: the name and the bio.
    const renamed = await api.put<{ username: string }>(
      `/api/users/profile/${user.id}`,
      { username: `${user.username}2`, email: user.email, bio: "Set from a script" },
      t,
    );
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body.username).toBe(`${user.username}2`);
  });

  it("lets an admin's write token remove another account, not its own", async () => {
    admin = await signInAdmin(server, api);
    const token = (await newToken(admin, "write")).token;
    const victim = await buildUser(server, api);
    const own = await api.delete(`/api/users/profile/${admin.id}`, { token });
    expect(own.status).toBe(403);
    const other = await api.delete(`/api/users/profile/${victim.id}`, { token });
    expect(other.status, other.text).toBe(200);
  });

  it("of an admin saves the site's settings but never changes the admins' second-factor rule", async () => {
    admin = await signInAdmin(server, api);
    const token = (await newToken(admin, "write")).token;
    const settings = {
      title: "Scripted",
      welcome: "Welcome",
      contactPhone: "+1 555 0100",
      contactEmail: "contact@example.com",
    };
    const saved = await api.put("/api/admin/settings", settings, { token });
    expect(saved.status, saved.text).toBe(200);
    // Left as it is (off), the rule may be named; changing it is an account change.
    const same = await api.put(
      "/api/admin/settings",
      { ...settings, requireAdminSecondFactor: false },
      { token },
    );
    expect(same.status, same.text).toBe(200);
    const changed = await api.put(
      "/api/admin/settings",
      { ...settings, requireAdminSecondFactor: true },
      { token },
    );
    expect(changed.status, changed.text).toBe(403);
    expect(changed.body).toMatchObject({ message: m.notWithToken });
  });

  it("records when it was last used", async () => {
    const { user, read, readId } = await member();
    await api.get("/api/users/me/settings", { token: read });
    // The stamp is written beside the request, not before its answer.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const list = await api.get<{ _id: string; lastUsedAt: string | null }[]>("/api/tokens", {
      token: user.token,
    });
    expect(list.body.find((token) => token._id === readId)?.lastUsedAt).toBe(
      new Date(now).toISOString(),
    );
  });

  it("stops working when its owner is suspended, and comes back with the account", async () => {
    const { user, read } = await member();
    const suspended = await api.put(
      `/api/users/suspend/${user.id}`,
      { suspended: true },
      { token: admin.token },
    );
    expect(suspended.status, suspended.text).toBe(200);
    expect((await api.get("/api/users/me/settings", { token: read })).status).toBe(401);
    await api.put(`/api/users/suspend/${user.id}`, { suspended: false }, { token: admin.token });
    expect((await api.get("/api/users/me/settings", { token: read })).status).toBe(200);
  });

  it("of an admin acts as a member's while admins need a second factor and it was made without", async () => {
    admin = await signInAdmin(server, api);
    const token = (await newToken(admin, "read")).token;
    expect((await api.get("/api/admin/audit", { token })).status).toBe(200);
    // As a save of the settings page would leave it (turning the rule on takes a second factor,
    // which the account-security tests go through).
    await server.app.deps.db
      .insertInto("site_settings")
      .values({
        id: "site",
        title: "Site",
        welcome: "Welcome",
        contact_phone: "+1 555 0100",
        contact_email: "contact@example.com",
        logo_key: null,
        logo_width: null,
        logo_height: null,
        require_admin_second_factor: 1,
        updated_at: new Date(now).toISOString(),
      })
      .onConflict((oc) => oc.column("id").doUpdateSet({ require_admin_second_factor: 1 }))
      .execute();
    try {
      expect((await api.get("/api/admin/audit", { token })).status).toBe(403);
    } finally {
      await server.app.deps.db
        .updateTable("site_settings")
        .set({ require_admin_second_factor: 0 })
        .execute();
    }
  });
});

describe("revoking a token", () => {
  it("answers 404 for another person's token or an unknown id, and 401 anonymous", async () => {
    const { readId } = await member();
    const stranger = await buildUser(server, api);
    expect((await api.delete(`/api/tokens/${readId}`, { token: stranger.token })).status).toBe(404);
    expect((await api.delete("/api/tokens/not-an-id", { token: stranger.token })).status).toBe(404);
    expect((await api.delete(`/api/tokens/${readId}`)).status).toBe(401);
  });

  it("ends it at once, and deleting the account ends all of them", async () => {
    const { user, read, write, readId } = await member();
    expect((await api.delete(`/api/tokens/${readId}`, { token: user.token })).status).toBe(204);
    expect((await api.get("/api/users/me/settings", { token: read })).status).toBe(401);
    expect((await api.get("/api/users/me/settings", { token: write })).status).toBe(200);
    const gone = await api.delete(`/api/users/profile/${user.id}`, { token: user.token });
    expect(gone.status, gone.text).toBe(200);
    expect((await api.get("/api/users/me/settings", { token: write })).status).toBe(401);
    expect(await tokenRows(user.id)).toEqual([]);
  });

  it("a password reset revokes every token, as the reset mail says, and the notice counts them", async () => {
    const { user, read, write } = await member();
    await api.post("/api/password/reset-password-link", { email: user.email });
    const mail = await lastMailTo(server.dataDir, user.email);
    expect(mail.text).toContain("revokes your API tokens");
    const link = await mailedLink(server.dataDir, user.email, "reset");
    const reset = await api.post(`/api/password${link.pathname}`, { password: "An0ther!pass" });
    expect(reset.status, reset.text).toBe(200);
    for (const token of [read, write]) {
      const refused = await api.get("/api/users/me/settings", { token });
      expect(refused.status, refused.text).toBe(401);
    }
    expect(await tokenRows(user.id)).toEqual([]);
    const notice = await lastMailTo(server.dataDir, user.email);
    expect(notice.subject).toContain("Your password changed");
    expect(notice.text).toContain("your 2 API tokens were revoked");
  });
});
