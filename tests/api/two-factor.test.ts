import * as OTPAuth from "otpauth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Clock } from "../../core/shared/clock.js";
import { buildUser, signInAdmin, type TestUser } from "../support/factories.js";
import { client, type Client } from "../support/http.js";
import { lastMailTo, readOutbox } from "../support/mail.js";
import { runCli } from "../support/porting.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

// Two-factor sign-in, recovery codes and the sessions list (DESIGN.md 10, "Account security").
// Codes are computed here with the otpauth package, not with the server's own code.

let now = Date.parse("2031-03-01T10:00:00Z");
const clock: Clock = () => new Date(now);

let server: TestServer;
let api: Client;

beforeAll(async () => {
  server = await startTestServer({}, { clock });
  api = client(server.url);
});
afterAll(() => server.close());

const codeAt = (secret: string, at: number) =>
  new OTPAuth.TOTP({
    secret: OTPAuth.Secret.fromBase32(secret),
    algorithm: "SHA1",
    digits: 6,
    period: 30,
  }).generate({ timestamp: at });

/** Moves the server's clock to the next 30-second step, so a new code is due. */
const nextStep = () => {
  now += 30_000;
};

async function withTwoFactor(user: TestUser) {
  const setup = await api.post<{ secret: string; otpauthUrl: string }>(
    "/api/auth/2fa/setup",
    undefined,
    { token: user.token },
  );
  expect(setup.status, setup.text).toBe(200);
  const enabled = await api.post<{ recoveryCodes: string[] }>(
    "/api/auth/2fa/enable",
    { code: codeAt(setup.body.secret, now) },
    { token: user.token },
  );
  expect(enabled.status, enabled.text).toBe(200);
  nextStep();
  return { secret: setup.body.secret, recoveryCodes: enabled.body.recoveryCodes };
}

const login = (user: TestUser, more: Record<string, string> = {}) =>
  api.post<{ token?: string; message?: string; twoFactorRequired?: boolean }>("/api/auth/login", {
    email: user.email,
    password: user.password,
    ...more,
  });

describe("setting two-factor sign-in up", () => {
  it("asks for a session", async () => {
    for (const path of ["/api/auth/2fa/setup", "/api/auth/2fa/enable", "/api/auth/2fa/disable"]) {
      expect((await api.post(path, {})).status).toBe(401);
    }
  });

  it("refuses to enable before a setup, or with a wrong code, and changes nothing", async () => {
    const user = await buildUser(server, api);
    const early = await api.post("/api/auth/2fa/enable", { code: "123456" }, { token: user.token });
    expect(early.status).toBe(400);
    expect(early.body.message).toBe("Set up two-factor sign-in first");
    const setup = await api.post<{ secret: string }>("/api/auth/2fa/setup", undefined, {
      token: user.token,
    });
    const wrongCode = codeAt(setup.body.secret, now) === "000000" ? "111111" : "000000";
    for (const code of [wrongCode, "", "abcdef", codeAt(setup.body.secret, now - 120_000)]) {
      const reply = await api.post("/api/auth/2fa/enable", { code }, { token: user.token });
      expect(reply.status, code).toBe(400);
      expect(reply.body.message).toBe("Invalid two-factor code");
    }
    // Still a password alone.
    expect((await login(user)).status).toBe(200);
  });

  it("asks a session that signed in over 15 minutes ago to sign in again", async () => {
    const user = await buildUser(server, api);
    now += 15 * 60_000;
    const stale = await api.post("/api/auth/2fa/setup", undefined, { token: user.token });
    expect(stale.status).toBe(403);
    expect(stale.body.message).toMatch(/^For your safety, sign in again/);
    const fresh = (await login(user)).body.token ?? "";
    expect((await api.post("/api/auth/2fa/setup", undefined, { token: fresh })).status).toBe(200);
  });

  it("gives the secret as text and as an otpauth address with the site's name", async () => {
    const user = await buildUser(server, api);
    const setup = await api.post<{ secret: string; otpauthUrl: string }>(
      "/api/auth/2fa/setup",
      undefined,
      { token: user.token },
    );
    expect(setup.body.secret).toMatch(/^[A-Z2-7]{32}$/);
    const url = new URL(setup.body.otpauthUrl);
    expect(url.protocol).toBe("otpauth:");
    expect(url.searchParams.get("secret")).toBe(setup.body.secret);
    expect(url.searchParams.get("issuer")).toBeTruthy();
    expect(decodeURIComponent(url.pathname)).toContain(user.email);
  });

  it("turns on with the app's code, answers ten recovery codes once, mails the owner", async () => {
    const user = await buildUser(server, api);
    const { recoveryCodes } = await withTwoFactor(user);
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    for (const code of recoveryCodes) expect(code).toMatch(/^[a-z2-7]{5}-[a-z2-7]{5}$/);
    expect((await lastMailTo(server.dataDir, user.email)).subject).toContain(
      "Two-factor sign-in is on",
    );
    const again = await api.post("/api/auth/2fa/setup", undefined, { token: user.token });
    expect(again.status).toBe(409);
    // Nothing secret is kept in clear but the app's secret itself.
    const rows = await server.app.deps.db
      .selectFrom("recovery_codes")
      .select("code_hash")
      .where("user_id", "=", user.id)
      .execute();
    expect(rows).toHaveLength(10);
    for (const row of rows) expect(recoveryCodes).not.toContain(row.code_hash);
  });
});

describe("signing in with two-factor sign-in on", () => {
  it("asks for the code after the right password, and only then", async () => {
    const user = await buildUser(server, api);
    await withTwoFactor(user);
    const wrongPassword = await login({ ...user, password: "Wrong-pass1!" });
    expect(wrongPassword.status).toBe(400);
    expect(wrongPassword.body.twoFactorRequired).toBeUndefined();
    const noCode = await login(user);
    expect(noCode.status).toBe(401);
    expect(noCode.body).toEqual({ message: "Two-factor code required", twoFactorRequired: true });
  });

  it("refuses a wrong, old or reused code and signs in with a fresh one", async () => {
    const user = await buildUser(server, api);
    const { secret } = await withTwoFactor(user);
    const wrong = await login(user, { code: codeAt(secret, now - 5 * 60_000) });
    expect(wrong.status).toBe(401);
    expect(wrong.body.message).toBe("Invalid two-factor code");
    const code = codeAt(secret, now);
    const signedIn = await login(user, { code });
    expect(signedIn.status, signedIn.text).toBe(200);
    expect(signedIn.body.token).toBeTruthy();
    const reused = await login(user, { code });
    expect(reused.status).toBe(401);
    expect(reused.body.message).toBe("Invalid two-factor code");
    nextStep();
    expect((await login(user, { code: codeAt(secret, now) })).status).toBe(200);
  });

  it("takes a code from half a minute before or after (a phone's clock drifts)", async () => {
    const user = await buildUser(server, api);
    const { secret } = await withTwoFactor(user);
    nextStep();
    nextStep();
    expect((await login(user, { code: codeAt(secret, now - 30_000) })).status).toBe(200);
    expect((await login(user, { code: codeAt(secret, now + 30_000) })).status).toBe(200);
  });

  it("signs in with a recovery code once, in any case and with spaces, and mails the owner", async () => {
    const user = await buildUser(server, api);
    const { recoveryCodes } = await withTwoFactor(user);
    const [first = "", second = ""] = recoveryCodes;
    const signedIn = await login(user, { recoveryCode: ` ${first.toUpperCase()} ` });
    expect(signedIn.status, signedIn.text).toBe(200);
    const mail = await lastMailTo(server.dataDir, user.email);
    expect(mail.subject).toContain("A recovery code was used");
    expect(mail.text).toContain("9 left");
    const twice = await login(user, { recoveryCode: first });
    expect(twice.status).toBe(401);
    expect(twice.body.message).toBe("Invalid two-factor code");
    expect((await login(user, { recoveryCode: second.replace("-", "") })).status).toBe(200);
    expect((await login(user, { recoveryCode: "aaaaa-bbbbb" })).status).toBe(401);
  });

  it("counts wrong codes against the account's sign-in attempts", async () => {
    const limited = await startTestServer({ RATE_LIMITS: "on" }, { clock });
    try {
      const limitedApi = client(limited.url);
      const user = await buildUser(limited, limitedApi);
      const setup = await limitedApi.post<{ secret: string }>("/api/auth/2fa/setup", undefined, {
        token: user.token,
      });
      await limitedApi.post(
        "/api/auth/2fa/enable",
        { code: codeAt(setup.body.secret, now) },
        { token: user.token },
      );
      nextStep();
      const good = codeAt(setup.body.secret, now);
      const bad = good === "000000" ? "111111" : "000000";
      const statuses: number[] = [];
      for (let i = 0; i < 5; i += 1) {
        const reply = await limitedApi.post("/api/auth/login", {
          email: user.email,
          password: user.password,
          code: bad,
        });
        statuses.push(reply.status);
      }
      expect(statuses).toEqual([401, 401, 401, 401, 401]);
      const locked = await limitedApi.post("/api/auth/login", {
        email: user.email,
        password: user.password,
        code: good,
      });
      expect(locked.status).toBe(429);
    } finally {
      await limited.close();
    }
  });
});

describe("turning two-factor sign-in off", () => {
  it("needs the current password, refuses a wrong one and changes nothing", async () => {
    const user = await buildUser(server, api);
    const { secret } = await withTwoFactor(user);
    const missing = await api.post("/api/auth/2fa/disable", {}, { token: user.token });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toBe("Current password is required");
    const wrong = await api.post(
      "/api/auth/2fa/disable",
      { currentPassword: "Wrong-pass1!" },
      { token: user.token },
    );
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toBe("Current password is incorrect");
    expect((await login(user)).status).toBe(401);
    expect((await login(user, { code: codeAt(secret, now) })).status).toBe(200);
  });

  it("turns off with the password: a password alone signs in, recovery codes are gone, the owner is mailed", async () => {
    const user = await buildUser(server, api);
    const { recoveryCodes } = await withTwoFactor(user);
    const off = await api.post(
      "/api/auth/2fa/disable",
      { currentPassword: user.password },
      { token: user.token },
    );
    expect(off.status).toBe(204);
    expect((await lastMailTo(server.dataDir, user.email)).subject).toContain(
      "Two-factor sign-in is off",
    );
    expect((await login(user)).status).toBe(200);
    const left = await server.app.deps.db
      .selectFrom("recovery_codes")
      .select("id")
      .where("user_id", "=", user.id)
      .execute();
    expect(left).toEqual([]);
    expect(recoveryCodes).toHaveLength(10);
    const again = await api.post(
      "/api/auth/2fa/disable",
      { currentPassword: user.password },
      { token: user.token },
    );
    expect(again.status).toBe(400);
    expect(again.body.message).toBe("Two-factor sign-in is not on");
  });
});

interface SessionRow {
  _id: string;
  createdAt: string;
  lastSeenAt: string;
  device: string;
  current: boolean;
}

describe("sessions", () => {
  it("asks for a session", async () => {
    expect((await api.get("/api/auth/sessions")).status).toBe(401);
    expect((await api.post("/api/auth/sessions/revoke-others")).status).toBe(401);
    expect((await api.delete("/api/auth/sessions/x")).status).toBe(401);
  });

  it("lists the account's devices by their browser and system, this one marked", async () => {
    const user = await buildUser(server, api);
    const firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
    const signIn = await api.post<{ token: string }>(
      "/api/auth/login",
      { email: user.email, password: user.password },
      { headers: { "user-agent": firefox } },
    );
    const list = await api.get<SessionRow[]>("/api/auth/sessions", { token: signIn.body.token });
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(2);
    const [current, other] = list.body;
    expect(current).toMatchObject({ current: true, device: "Firefox on Linux" });
    expect(other?.current).toBe(false);
    // A phone and a program by their names; an agent that names nothing, as such (issue 50).
    const agents = {
      "Safari on iPhone":
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1",
      "Edge on Windows":
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
      curl: "curl/8.5.0",
      "Unknown device": "",
    };
    for (const agent of Object.values(agents)) {
      const reply = await api.post(
        "/api/auth/login",
        { email: user.email, password: user.password },
        { headers: { "user-agent": agent } },
      );
      expect(reply.status, reply.text).toBe(200);
    }
    const devices = (
      await api.get<SessionRow[]>("/api/auth/sessions", { token: signIn.body.token })
    ).body.map((row) => row.device);
    expect(devices).toEqual(expect.arrayContaining(["Firefox on Linux", ...Object.keys(agents)]));
    expect(Object.keys(current ?? {}).sort()).toEqual(
      ["_id", "createdAt", "current", "device", "lastSeenAt"].sort(),
    );
    // Nobody else's sessions show.
    const stranger = await buildUser(server, api);
    const theirs = await api.get<SessionRow[]>("/api/auth/sessions", { token: stranger.token });
    expect(theirs.body.map((row) => row._id)).not.toContain(current?._id);
    // No user agent is stored, only the device's name.
    const stored = await server.app.deps.db
      .selectFrom("sessions")
      .selectAll()
      .where("user_id", "=", user.id)
      .execute();
    expect(JSON.stringify(stored)).not.toContain("Gecko");
  });

  it("will not end another account's session, or one that does not exist", async () => {
    const user = await buildUser(server, api);
    const stranger = await buildUser(server, api);
    const [theirs] = (await api.get<SessionRow[]>("/api/auth/sessions", { token: stranger.token }))
      .body;
    for (const id of [theirs?._id ?? "", "no-such-session"]) {
      const reply = await api.delete(`/api/auth/sessions/${id}`, { token: user.token });
      expect(reply.status).toBe(404);
      expect(reply.body.message).toBe("Session not found");
    }
    expect((await api.get("/api/auth/sessions", { token: stranger.token })).status).toBe(200);
  });

  it("signs one device out at once, then all others", async () => {
    const user = await buildUser(server, api);
    const second = (await login(user)).body.token ?? "";
    const third = (await login(user)).body.token ?? "";
    const list = (await api.get<SessionRow[]>("/api/auth/sessions", { token: user.token })).body;
    expect(list).toHaveLength(3);
    const secondRow = (
      await api.get<SessionRow[]>("/api/auth/sessions", { token: second })
    ).body.find((row) => row.current);
    const ended = await api.delete(`/api/auth/sessions/${secondRow?._id ?? ""}`, {
      token: user.token,
    });
    expect(ended.status).toBe(204);
    expect((await api.get("/api/auth/sessions", { token: second })).status).toBe(401);
    expect((await api.get("/api/auth/sessions", { token: third })).status).toBe(200);
    const others = await api.post("/api/auth/sessions/revoke-others", undefined, {
      token: user.token,
    });
    expect(others.status).toBe(204);
    expect((await api.get("/api/auth/sessions", { token: third })).status).toBe(401);
    const mine = await api.get<SessionRow[]>("/api/auth/sessions", { token: user.token });
    expect(mine.body.map((row) => row.current)).toEqual([true]);
  });

  it("keeps when a session was last used, a few minutes at most behind", async () => {
    const user = await buildUser(server, api);
    const before = (await api.get<SessionRow[]>("/api/auth/sessions", { token: user.token })).body;
    now += 60 * 60_000;
    await api.get("/api/auth/sessions", { token: user.token });
    // The write is not awaited by the request: give it a moment.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const after = (await api.get<SessionRow[]>("/api/auth/sessions", { token: user.token })).body;
    expect(Date.parse(after[0]?.lastSeenAt ?? "")).toBe(now);
    expect(after[0]?.lastSeenAt).not.toBe(before[0]?.lastSeenAt);
  });
});

describe("mail about security changes", () => {
  it("tells the owner when the password changes", async () => {
    const user = await buildUser(server, api);
    const before = (await readOutbox(server.dataDir)).length;
    const reply = await api.put(
      `/api/users/profile/${user.id}`,
      {
        username: user.username,
        email: user.email,
        bio: "A bio",
        password: "New-Pass1!x",
        currentPassword: user.password,
        socialMedia: [],
      },
      { token: user.token },
    );
    expect(reply.status, reply.text).toBe(200);
    const mails = (await readOutbox(server.dataDir)).slice(before);
    expect(mails.map((mail) => mail.subject)).toEqual([
      expect.stringContaining("Your password changed") as unknown,
    ]);
  });
});

describe("admins required to use a second factor", () => {
  it("will not be turned on by an admin without one, and then holds admins to it", async () => {
    const admin = await signInAdmin(server, api);
    const settings = {
      title: "Site",
      welcome: "Welcome",
      contactPhone: "+1 555 0100",
      contactEmail: "contact@example.com",
    };
    const refused = await api.put(
      "/api/admin/settings",
      { ...settings, requireAdminSecondFactor: true },
      { token: admin.token },
    );
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/^Turn on two-factor sign-in or add a passkey/);
    const other = await buildUser(server, api, { isAdmin: true });
    // A session the admin opened with the password alone, before turning two-factor on.
    const older = (await login(admin)).body.token ?? "";
    const { secret } = await withTwoFactor(admin);
    const saved = await api.put(
      "/api/admin/settings",
      { ...settings, requireAdminSecondFactor: true },
      { token: admin.token },
    );
    expect(saved.status, saved.text).toBe(200);
    // The admin without a second factor acts as a member: 403 on the admin's calls.
    expect((await api.get("/api/users/profile", { token: other.token })).status).toBe(403);
    expect((await api.get("/api/users/profile", { token: admin.token })).status).toBe(200);
    // The rule asks how the session signed in, not whether the account has a second factor.
    expect((await api.get("/api/users/profile", { token: older })).status).toBe(403);
    // A password-only sign-in says so in its answer.
    expect((await login(other)).body).toMatchObject({ isAdmin: false });
    // Left out of a later save, the rule stays.
    await api.put("/api/admin/settings", settings, { token: admin.token });
    expect((await api.get("/api/users/profile", { token: other.token })).status).toBe(403);
    await withTwoFactor(other);
    expect((await api.get("/api/users/profile", { token: other.token })).status).toBe(200);
    const off = await api.put(
      "/api/admin/settings",
      { ...settings, requireAdminSecondFactor: false },
      { token: (await login(admin, { code: codeAt(secret, now) })).body.token ?? "" },
    );
    expect(off.status).toBe(200);
  });
});

describe("recovery on the server's command line", () => {
  it("refuses an unknown address and changes nothing", async () => {
    const run = await runCli("account", ["--reset-second-factor", "nobody@example.com"], {
      dataDir: server.dataDir,
      databaseUrl: server.config.databaseUrl,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("No account with the e-mail address nobody@example.com");
    const usage = await runCli("account", [], {
      dataDir: server.dataDir,
      databaseUrl: server.config.databaseUrl,
    });
    expect(usage.code).toBe(1);
    expect(usage.stderr).toContain("Usage: npm run account -- --reset-second-factor EMAIL");
  });

  it("lets an account that lost its app back in with the password alone, signed out everywhere", async () => {
    const user = await buildUser(server, api);
    await withTwoFactor(user);
    expect((await login(user)).status).toBe(401);
    const run = await runCli("account", ["--reset-second-factor", user.email.toUpperCase()], {
      dataDir: server.dataDir,
      databaseUrl: server.config.databaseUrl,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("two-factor sign-in off, 0 passkey(s) removed");
    expect((await api.get("/api/auth/sessions", { token: user.token })).status).toBe(401);
    expect((await login(user)).status).toBe(200);
  });
});
