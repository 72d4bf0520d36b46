import { randomUUID } from "node:crypto";
import type {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from "@simplewebauthn/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as OTPAuth from "otpauth";
import { PASSKEY_RESPONSE_MAX, securityMessages } from "../../contract/account-security.js";
import type { Clock } from "../../core/shared/clock.js";
import { buildUser, loginAs, type TestUser } from "../support/factories.js";
import { loopbackAddress, postJsonFrom } from "../support/from-address.js";
import { client, type Client, type Reply } from "../support/http.js";
import { lastMailTo, readOutbox } from "../support/mail.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import {
  authenticate,
  newCredential,
  register,
  strangerKey,
  type AuthenticateOverrides,
  type RegisterOverrides,
  type SoftCredential,
} from "../support/webauthn.js";

const INVALID = "This passkey could not be verified, please try again";
const UNKNOWN = "This passkey is not registered here";
const NOT_FOUND = "Passkey not found";
const ALREADY = "This passkey is already registered";
const PASSWORD_REQUIRED = "Current password is required";
const PASSWORD_WRONG = "Current password is incorrect";
const FACTOR_FIRST = securityMessages.factorFirst;
const LOCKED =
  /^Too many failed sign-in attempts for this account, please try again in 1[45] minutes$/;

interface PasskeyJSON {
  _id: string;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
}
interface CreationAnswer {
  options: PublicKeyCredentialCreationOptionsJSON;
  challengeId: string;
}
interface RequestAnswer {
  options: PublicKeyCredentialRequestOptionsJSON;
  challengeId: string;
}
interface SignedIn {
  _id: string;
  username: string;
  isAdmin: boolean;
  token: string;
}

const MINUTE = 60_000;

/** The server's clock runs with real time, `skew` ahead: a test may move it on, never back. */
let skew = 0;
const clock: Clock = () => new Date(Date.now() + skew);

let server: TestServer;
let api: Client;

// Reached as localhost: WebAuthn takes no IP address as its relying party (decision 031).
beforeAll(async () => {
  server = await startTestServer({}, { clock }, "localhost");
  api = client(server.url);
});
afterAll(() => server.close());

/** The user id as the options carry it, and as a discoverable passkey hands it back. */
const userHandleOf = (userId: string) => Buffer.from(userId, "utf8").toString("base64url");

function expectRefused(reply: Reply, status: number, message: string) {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.body).toMatchObject({ message });
}

async function creationOptions(user: TestUser, body?: unknown): Promise<CreationAnswer> {
  const reply = await api.post<CreationAnswer>("/api/auth/passkeys/register/options", body, {
    token: user.token,
  });
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

const verifyRegistration = (user: TestUser, body: unknown) =>
  api.post<PasskeyJSON>("/api/auth/passkeys/register/verify", body, { token: user.token });

/** The whole registration, as the settings page does it; fails the test unless it is 201. */
async function addPasskey(
  user: TestUser,
  { name, withChallengeId = true }: { name?: string; withChallengeId?: boolean } = {},
) {
  const { options, challengeId } = await creationOptions(
    user,
    name === undefined ? undefined : { name },
  );
  const { response, credential } = register(options, server.url);
  const reply = await verifyRegistration(
    user,
    withChallengeId ? { ...response, challengeId } : response,
  );
  expect(reply.status, reply.text).toBe(201);
  return { passkey: reply.body, credential };
}

async function requestOptions(target: Client = api): Promise<RequestAnswer> {
  const reply = await target.post<RequestAnswer>("/api/auth/passkeys/login/options");
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

const verifyLogin = (body: unknown, target: Client = api) =>
  target.post<SignedIn>("/api/auth/passkeys/login/verify", body);

/** A sign-in with `credential` against fresh options, answered from the site's own origin. */
async function signIn(
  credential: SoftCredential,
  overrides: AuthenticateOverrides = {},
  { withChallengeId = true, origin }: { withChallengeId?: boolean; origin?: string } = {},
) {
  const { options, challengeId } = await requestOptions();
  const response = authenticate(options, origin ?? server.url, credential, overrides);
  return verifyLogin(withChallengeId ? { ...response, challengeId } : response);
}

async function listPasskeys(user: TestUser) {
  const reply = await api.get<PasskeyJSON[]>("/api/auth/passkeys", { token: user.token });
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

describe("POST /api/auth/passkeys/register/options", () => {
  it("is 401 without a token", async () => {
    const reply = await api.post("/api/auth/passkeys/register/options", {});
    expectRefused(reply, 401, "No token provided, please log in");
  });

  it("is 401 with a token that is not a session", async () => {
    const reply = await api.post("/api/auth/passkeys/register/options", {}, { token: "nope" });
    expect(reply.status).toBe(401);
  });

  it("refuses a name over 60 characters with 400, and takes one of 60", async () => {
    const user = await buildUser(server, api);
    const reply = await api.post(
      "/api/auth/passkeys/register/options",
      { name: "x".repeat(61) },
      { token: user.token },
    );
    expectRefused(reply, 400, "Name must be at most 60 characters");
    const answer = await creationOptions(user, { name: "x".repeat(60) });
    expect(answer.challengeId).toEqual(expect.any(String));
  });

  it("refuses a name that is not text with 400", async () => {
    const user = await buildUser(server, api);
    const reply = await api.post(
      "/api/auth/passkeys/register/options",
      { name: 42 },
      { token: user.token },
    );
    expectRefused(reply, 400, "Name must be at most 60 characters");
  });

  it("answers options for this site and this account, with a fresh challenge each time", async () => {
    const user = await buildUser(server, api);
    const first = await creationOptions(user);
    const second = await creationOptions(user, { name: "Laptop" });
    expect(first.options.rp.id).toBe("localhost");
    expect(first.options.user.id).toBe(userHandleOf(user.id));
    expect(first.options.user.name).toBe(user.email);
    expect(first.options.user.displayName).toBe(user.username);
    expect(first.options.challenge).toMatch(/^[A-Za-z0-9_-]{16,}$/);
    expect(first.options.excludeCredentials).toEqual([]);
    expect(first.options.pubKeyCredParams.map((param) => param.alg)).toContain(-7);
    expect(first.options.authenticatorSelection?.residentKey).toBe("required");
    expect(second.options.challenge).not.toBe(first.options.challenge);
    expect(second.challengeId).not.toBe(first.challengeId);
  });

  it("lists the account's own passkeys (and only those) in excludeCredentials", async () => {
    const user = await buildUser(server, api);
    const other = await buildUser(server, api);
    const { credential } = await addPasskey(user);
    await addPasskey(other);
    const { options } = await creationOptions(user);
    expect(options.excludeCredentials).toEqual([
      { id: credential.id, type: "public-key", transports: ["internal"] },
    ]);
  });
});

describe("POST /api/auth/passkeys/register/verify", () => {
  it("is 401 without a token, and keeps nothing", async () => {
    const user = await buildUser(server, api);
    const { options, challengeId } = await creationOptions(user);
    const { response } = register(options, server.url);
    const reply = await api.post("/api/auth/passkeys/register/verify", {
      ...response,
      challengeId,
    });
    expectRefused(reply, 401, "No token provided, please log in");
    expect(await listPasskeys(user)).toEqual([]);
  });

  it.each([
    ["another origin", {}, "https://evil.example"],
    ["another origin on another port", {}, "http://localhost:1"],
    ["another challenge", { challenge: Buffer.from("forged").toString("base64url") }, undefined],
    ["another relying party", { rpId: "evil.example" }, undefined],
    ["a sign-in's type", { type: "webauthn.get" }, undefined],
    ["no user presence", { flags: 0x44 }, undefined],
  ] satisfies [string, RegisterOverrides, string | undefined][])(
    "refuses an answer with %s (400) and keeps nothing",
    async (_case, overrides, origin) => {
      const user = await buildUser(server, api);
      const { options, challengeId } = await creationOptions(user);
      const { response } = register(options, origin ?? server.url, overrides);
      expectRefused(await verifyRegistration(user, { ...response, challengeId }), 400, INVALID);
      expect(await listPasskeys(user)).toEqual([]);
      // The same steps without the forgery pass: the refusal was for it.
      await addPasskey(user);
      expect(await listPasskeys(user)).toHaveLength(1);
    },
  );

  it("refuses a challenge answered twice (a replay), with or without its challengeId", async () => {
    const user = await buildUser(server, api);
    const { options, challengeId } = await creationOptions(user);
    const { response } = register(options, server.url);
    expect((await verifyRegistration(user, { ...response, challengeId })).status).toBe(201);
    // The very same answer again: the challenge is spent (not a 409 for the known credential).
    expectRefused(await verifyRegistration(user, { ...response, challengeId }), 400, INVALID);
    // A new credential on the spent challenge, by id and by the signed challenge alone.
    const again = register(options, server.url).response;
    expectRefused(await verifyRegistration(user, { ...again, challengeId }), 400, INVALID);
    expectRefused(await verifyRegistration(user, again), 400, INVALID);
    expect(await listPasskeys(user)).toHaveLength(1);
  });

  it("refuses a challenge handed out to another account", async () => {
    const owner = await buildUser(server, api);
    const intruder = await buildUser(server, api);
    const { options, challengeId } = await creationOptions(owner);
    const { response } = register(options, server.url);
    expectRefused(await verifyRegistration(intruder, { ...response, challengeId }), 400, INVALID);
    const other = await creationOptions(owner);
    const bare = register(other.options, server.url).response;
    expectRefused(await verifyRegistration(intruder, bare), 400, INVALID);
    expect(await listPasskeys(intruder)).toEqual([]);
    expect(await listPasskeys(owner)).toEqual([]);
  });

  it("refuses a sign-in challenge answered as a registration", async () => {
    const user = await buildUser(server, api);
    const { options: creation } = await creationOptions(user);
    const { options, challengeId } = await requestOptions();
    const { response } = register(creation, server.url, { challenge: options.challenge });
    expectRefused(await verifyRegistration(user, { ...response, challengeId }), 400, INVALID);
    expectRefused(await verifyRegistration(user, response), 400, INVALID);
  });

  it("refuses an unknown or malformed challengeId", async () => {
    const user = await buildUser(server, api);
    const { options } = await creationOptions(user);
    const { response } = register(options, server.url);
    for (const challengeId of [randomUUID(), "not an id"]) {
      expectRefused(await verifyRegistration(user, { ...response, challengeId }), 400, INVALID);
    }
    expect(
      (await verifyRegistration(user, { ...response, challengeId: "x".repeat(41) })).status,
    ).toBe(400);
    // The challenge was not spent by those: the answer passes on its own.
    expect((await verifyRegistration(user, response)).status).toBe(201);
  });

  it.each([
    ["an empty body", {}],
    ["no body at all", undefined],
    ["an array", []],
    ["a wrong type", { id: "abc", rawId: "abc", type: "password", response: {} }],
    ["no response", { id: "abc", rawId: "abc", type: "public-key" }],
  ])("refuses %s with 400", async (_case, body) => {
    const user = await buildUser(server, api);
    const reply = await verifyRegistration(user, body);
    expect(reply.status, reply.text).toBe(400);
    expect(await listPasskeys(user)).toEqual([]);
  });

  it("refuses garbage in the response's fields with 400", async () => {
    const user = await buildUser(server, api);
    const { options, challengeId } = await creationOptions(user);
    const { response } = register(options, server.url);
    const cases = [
      { ...response.response, attestationObject: "garbage" },
      { ...response.response, attestationObject: Buffer.from("garbage").toString("base64url") },
      { ...response.response, clientDataJSON: "garbage" },
      { ...response.response, clientDataJSON: 42 },
    ];
    for (const broken of cases) {
      const fresh = await creationOptions(user);
      const reply = await verifyRegistration(user, {
        ...response,
        response: broken,
        challengeId: fresh.challengeId,
      });
      expectRefused(reply, 400, INVALID);
    }
    // id and rawId that disagree.
    expectRefused(
      await verifyRegistration(user, { ...response, rawId: "AAAA", challengeId }),
      400,
      INVALID,
    );
    expect(await listPasskeys(user)).toEqual([]);
  });

  it("refuses an answer once the challenge's 5 minutes are over", async () => {
    const user = await buildUser(server, api);
    const early = await creationOptions(user);
    const late = await creationOptions(user);
    skew += 4.5 * MINUTE;
    const inTime = register(early.options, server.url).response;
    const reply = await verifyRegistration(user, { ...inTime, challengeId: early.challengeId });
    expect(reply.status, reply.text).toBe(201);
    skew += MINUTE;
    const tooLate = register(late.options, server.url).response;
    expectRefused(
      await verifyRegistration(user, { ...tooLate, challengeId: late.challengeId }),
      400,
      INVALID,
    );
    expectRefused(await verifyRegistration(user, tooLate), 400, INVALID);
    expect(await listPasskeys(user)).toHaveLength(1);
  });

  // An answer is a few kilobytes: far more is refused before it is read (PASSKEY_RESPONSE_MAX), so
  // nobody can store a megabyte that every later set of options would echo back.
  it("refuses an answer far bigger than a passkey's (over PASSKEY_RESPONSE_MAX)", async () => {
    const user = await buildUser(server, api);
    const { options, challengeId } = await creationOptions(user);
    const { response } = register(options, server.url);
    const padded = {
      ...response,
      response: { ...response.response, transports: Array<string>(8000).fill("internal") },
      challengeId,
    };
    expect(JSON.stringify(padded).length).toBeGreaterThan(PASSKEY_RESPONSE_MAX);
    const reply = await verifyRegistration(user, padded);
    expect([400, 413], reply.text).toContain(reply.status);
    expect(await listPasskeys(user)).toEqual([]);
  });

  it("is 409 for a credential this account registered already, and sends no second mail", async () => {
    const user = await buildUser(server, api);
    const { credential } = await addPasskey(user);
    const mails = (await readOutbox(server.dataDir)).length;
    const { options, challengeId } = await creationOptions(user);
    const { response } = register(options, server.url, { credential });
    expectRefused(await verifyRegistration(user, { ...response, challengeId }), 409, ALREADY);
    expect(await listPasskeys(user)).toHaveLength(1);
    expect((await readOutbox(server.dataDir)).length).toBe(mails);
  });

  it("is 409 for a credential another account registered", async () => {
    const owner = await buildUser(server, api);
    const other = await buildUser(server, api);
    const { credential } = await addPasskey(owner);
    const { options, challengeId } = await creationOptions(other);
    const { response } = register(options, server.url, { credential });
    expectRefused(await verifyRegistration(other, { ...response, challengeId }), 409, ALREADY);
    expect(await listPasskeys(other)).toEqual([]);
  });

  it("keeps one of two answers with the same new credential sent at the same moment", async () => {
    const user = await buildUser(server, api);
    const first = await creationOptions(user);
    const second = await creationOptions(user);
    const { response, credential } = register(first.options, server.url);
    const twin = register(second.options, server.url, { credential }).response;
    const replies = await Promise.all([
      verifyRegistration(user, { ...response, challengeId: first.challengeId }),
      verifyRegistration(user, { ...twin, challengeId: second.challengeId }),
    ]);
    expect(replies.map((reply) => reply.status).sort()).toEqual([201, 409]);
    expect(await listPasskeys(user)).toHaveLength(1);
  });

  it("adds the passkey (201) under the name given with the options, and mails the owner", async () => {
    const user = await buildUser(server, api);
    const before = Date.now();
    const { passkey } = await addPasskey(user, { name: "  Work laptop  " });
    expect(passkey).toEqual({
      _id: expect.any(String) as unknown,
      name: "Work laptop",
      createdAt: expect.any(String) as unknown,
      lastUsedAt: null,
    });
    expect(Date.parse(passkey.createdAt)).toBeGreaterThanOrEqual(before - 1000);
    const mail = await lastMailTo(server.dataDir, user.email);
    expect(mail.subject).toContain("A passkey was added");
    expect(mail.text).toContain("Work laptop");
    expect(await listPasskeys(user)).toEqual([passkey]);
  });

  it('names unnamed passkeys "Passkey 1", "Passkey 2", ..., a blank name too', async () => {
    const user = await buildUser(server, api);
    const first = await addPasskey(user);
    const second = await addPasskey(user, { name: "   " });
    const third = await addPasskey(user, { name: "" });
    expect([first, second, third].map(({ passkey }) => passkey.name)).toEqual([
      "Passkey 1",
      "Passkey 2",
      "Passkey 3",
    ]);
  });

  it("finds the challenge from clientDataJSON when no challengeId comes along", async () => {
    const user = await buildUser(server, api);
    const { passkey } = await addPasskey(user, { name: "Phone", withChallengeId: false });
    expect(passkey.name).toBe("Phone");
    expect(await listPasskeys(user)).toEqual([passkey]);
  });
});

describe("POST /api/auth/passkeys/login/options", () => {
  it("answers options for this site without a session, naming no credentials", async () => {
    const first = await requestOptions();
    const second = await requestOptions();
    expect(first.options.rpId).toBe("localhost");
    expect(first.options.challenge).toMatch(/^[A-Za-z0-9_-]{16,}$/);
    expect(first.options.allowCredentials ?? []).toEqual([]);
    expect(first.challengeId).toEqual(expect.any(String));
    expect(second.options.challenge).not.toBe(first.options.challenge);
    expect(second.challengeId).not.toBe(first.challengeId);
  });
});

describe("POST /api/auth/passkeys/login/verify", () => {
  let user: TestUser;
  let other: TestUser;
  let credential: SoftCredential;

  beforeAll(async () => {
    user = await buildUser(server, api);
    other = await buildUser(server, api);
    ({ credential } = await addPasskey(user));
    await addPasskey(other);
  });

  it("refuses a passkey this site does not know with 400", async () => {
    const stranger = newCredential("localhost", userHandleOf(user.id));
    expectRefused(await signIn(stranger), 400, UNKNOWN);
    expectRefused(await signIn(stranger, {}, { withChallengeId: false }), 400, UNKNOWN);
  });

  it.each([
    ["another origin", () => ({}), "https://evil.example"],
    ["another origin on another port", () => ({}), "http://localhost:1"],
    ["another relying party", () => ({ rpId: "evil.example" }), undefined],
    ["another challenge", () => ({ challenge: Buffer.from("x").toString("base64url") }), undefined],
    ["a registration's type", () => ({ type: "webauthn.create" }), undefined],
    ["no user presence", () => ({ flags: 0x04 }), undefined],
    ["a bad signature", () => ({ signingKey: strangerKey() }), undefined],
    ["another account's user handle", () => ({ userHandle: userHandleOf(other.id) }), undefined],
    ["an empty user handle", () => ({ userHandle: "" }), undefined],
  ] satisfies [string, () => AuthenticateOverrides, string | undefined][])(
    "refuses an answer with %s (400)",
    async (_case, forged, origin) => {
      expectRefused(await signIn(credential, forged(), { origin }), 400, INVALID);
      // The same steps without the forgery sign in.
      expect((await signIn(credential)).status).toBe(200);
    },
  );

  it("refuses a challenge answered twice (a replay)", async () => {
    const { options, challengeId } = await requestOptions();
    const response = authenticate(options, server.url, credential);
    expect((await verifyLogin({ ...response, challengeId })).status).toBe(200);
    expectRefused(await verifyLogin({ ...response, challengeId }), 400, INVALID);
    expectRefused(await verifyLogin(response), 400, INVALID);
    // A new signature (counter moved on) on the spent challenge is no better.
    const again = authenticate(options, server.url, credential);
    expectRefused(await verifyLogin({ ...again, challengeId }), 400, INVALID);
    expectRefused(await verifyLogin(again), 400, INVALID);
  });

  it("refuses an answer once the challenge's 5 minutes are over", async () => {
    const early = await requestOptions();
    const late = await requestOptions();
    skew += 4.5 * MINUTE;
    const inTime = authenticate(early.options, server.url, credential);
    expect((await verifyLogin({ ...inTime, challengeId: early.challengeId })).status).toBe(200);
    skew += MINUTE;
    const tooLate = authenticate(late.options, server.url, credential);
    expectRefused(await verifyLogin({ ...tooLate, challengeId: late.challengeId }), 400, INVALID);
    expectRefused(await verifyLogin(tooLate), 400, INVALID);
  });

  it("refuses a challenge handed out for a registration", async () => {
    const { options: creation, challengeId } = await creationOptions(user);
    const { options } = await requestOptions();
    const response = authenticate(
      { ...options, challenge: creation.challenge },
      server.url,
      credential,
    );
    expectRefused(await verifyLogin({ ...response, challengeId }), 400, INVALID);
    expectRefused(await verifyLogin(response), 400, INVALID);
  });

  it("refuses a signature counter that did not move on (a cloned passkey)", async () => {
    expect((await signIn(credential)).status).toBe(200);
    expectRefused(await signIn(credential, { counter: credential.signCount }), 400, INVALID);
    expectRefused(await signIn(credential, { counter: 0 }), 400, INVALID);
    expect((await signIn(credential)).status).toBe(200);
  });

  it("refuses garbage with 400", async () => {
    for (const body of [{}, [], { id: credential.id, rawId: credential.id, type: "public-key" }]) {
      expect((await verifyLogin(body)).status).toBe(400);
    }
    const { options, challengeId } = await requestOptions();
    const response = authenticate(options, server.url, credential);
    const cases = [
      { ...response.response, authenticatorData: "garbage!" },
      { ...response.response, authenticatorData: Buffer.from("short").toString("base64url") },
      { ...response.response, signature: "" },
      { ...response.response, clientDataJSON: "garbage" },
    ];
    for (const broken of cases) {
      const fresh = await requestOptions();
      const reply = await verifyLogin({
        ...response,
        response: broken,
        challengeId: fresh.challengeId,
      });
      expectRefused(reply, 400, INVALID);
    }
    expectRefused(await verifyLogin({ ...response, rawId: "AAAA", challengeId }), 400, INVALID);
  });

  it("is 403 for a suspended account, after a good answer", async () => {
    const suspended = await buildUser(server, api);
    const { credential: key } = await addPasskey(suspended);
    await server.app.deps.db
      .updateTable("users")
      .set({ suspended_at: new Date().toISOString() })
      .where("id", "=", suspended.id)
      .execute();
    expectRefused(await signIn(key), 403, "This account is suspended");
  });

  it("signs in (200) as a password would, with a token that works", async () => {
    const reply = await signIn(credential);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({ _id: user.id, username: user.username, isAdmin: false });
    expect(reply.body.token).toEqual(expect.any(String));
    expect(reply.body.token).not.toBe(user.token);
    const sessions = await api.get("/api/auth/sessions", { token: reply.body.token });
    expect(sessions.status, sessions.text).toBe(200);
  });

  it("signs in without a challengeId, by the challenge the passkey signed", async () => {
    const reply = await signIn(credential, {}, { withChallengeId: false });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body._id).toBe(user.id);
    expect((await api.get("/api/auth/sessions", { token: reply.body.token })).status).toBe(200);
  });

  it("signs in with a passkey that sends no user handle", async () => {
    const reply = await signIn(credential, { userHandle: null });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body._id).toBe(user.id);
  });

  it("does not count failures while RATE_LIMITS is off", async () => {
    for (let i = 0; i < 7; i += 1) {
      expectRefused(await signIn(credential, { signingKey: strangerKey() }), 400, INVALID);
    }
    expect((await signIn(credential)).status).toBe(200);
  });
});

describe("GET and DELETE /api/auth/passkeys", () => {
  it("are 401 without a token", async () => {
    expectRefused(await api.get("/api/auth/passkeys"), 401, "No token provided, please log in");
    const user = await buildUser(server, api);
    const { passkey } = await addPasskey(user);
    expectRefused(
      await api.delete(`/api/auth/passkeys/${passkey._id}`),
      401,
      "No token provided, please log in",
    );
    expect(await listPasskeys(user)).toHaveLength(1);
  });

  it("is 404 for another account's passkey, which stays", async () => {
    const owner = await buildUser(server, api);
    const intruder = await buildUser(server, api);
    const { passkey, credential } = await addPasskey(owner);
    const reply = await api.delete(`/api/auth/passkeys/${passkey._id}`, {
      token: intruder.token,
    });
    expectRefused(reply, 404, NOT_FOUND);
    expect(await listPasskeys(owner)).toEqual([passkey]);
    expect((await signIn(credential)).status).toBe(200);
  });

  it("is 404 for an unknown id", async () => {
    const user = await buildUser(server, api);
    for (const id of [randomUUID(), "nope", "%20"]) {
      expectRefused(
        await api.delete(`/api/auth/passkeys/${id}`, { token: user.token }),
        404,
        NOT_FOUND,
      );
    }
  });

  it("lists the account's passkeys oldest first, and only its own", async () => {
    const user = await buildUser(server, api);
    const other = await buildUser(server, api);
    expect(await listPasskeys(user)).toEqual([]);
    const first = await addPasskey(user, { name: "First" });
    const second = await addPasskey(user, { name: "Second" });
    await addPasskey(other, { name: "Not mine" });
    expect(await listPasskeys(user)).toEqual([first.passkey, second.passkey]);
  });

  it("shows when a passkey was last used to sign in", async () => {
    const user = await buildUser(server, api);
    const used = await addPasskey(user, { name: "Used" });
    const idle = await addPasskey(user, { name: "Idle" });
    const before = Date.now();
    expect((await signIn(used.credential)).status).toBe(200);
    const list = await listPasskeys(user);
    expect(list).toEqual([
      { ...used.passkey, lastUsedAt: expect.any(String) as unknown },
      idle.passkey,
    ]);
    expect(Date.parse(list[0]?.lastUsedAt ?? "")).toBeGreaterThanOrEqual(before - 1000);
  });

  it("asks for the current password once the sign-in is over 15 minutes old (400), and keeps the passkey", async () => {
    const user = await buildUser(server, api);
    const { passkey, credential } = await addPasskey(user, { name: "Phone" });
    skew += 16 * MINUTE;
    const remove = (body?: unknown) =>
      api.delete(`/api/auth/passkeys/${passkey._id}`, { token: user.token }, body);
    for (const body of [undefined, {}, { currentPassword: "" }]) {
      const reply = await remove(body);
      expectRefused(reply, 400, PASSWORD_REQUIRED);
      expect(reply.body).toMatchObject({ errors: { currentPassword: PASSWORD_REQUIRED } });
    }
    const wrong = await remove({ currentPassword: "Not-the-pass1!" });
    expectRefused(wrong, 400, PASSWORD_WRONG);
    expect(await listPasskeys(user)).toEqual([passkey]);
    expect(
      (await readOutbox(server.dataDir)).filter((mail) => mail.to === user.email),
    ).toHaveLength(
      1, // the passkey's "added"
    );
    const reply = await remove({ currentPassword: user.password });
    expect(reply.status, reply.text).toBe(204);
    expect(await listPasskeys(user)).toEqual([]);
    expectRefused(await signIn(credential), 400, UNKNOWN);
    const mail = await lastMailTo(server.dataDir, user.email);
    expect(mail.subject).toContain("A passkey was removed");
    expect(mail.text).toContain("(Phone)");
  });

  it("removes a passkey (204), which then cannot sign in", async () => {
    const user = await buildUser(server, api);
    const kept = await addPasskey(user, { name: "Kept" });
    const removed = await addPasskey(user, { name: "Removed" });
    expect((await signIn(removed.credential)).status).toBe(200);
    const reply = await api.delete(`/api/auth/passkeys/${removed.passkey._id}`, {
      token: user.token,
    });
    expect(reply.status, reply.text).toBe(204);
    expect(await listPasskeys(user)).toEqual([kept.passkey]);
    expectRefused(await signIn(removed.credential), 400, UNKNOWN);
    expectRefused(
      await api.delete(`/api/auth/passkeys/${removed.passkey._id}`, { token: user.token }),
      404,
      NOT_FOUND,
    );
    expect((await signIn(kept.credential)).status).toBe(200);
    // Within 15 minutes of the sign-in, no password is asked; the owner is told all the same.
    expect((await lastMailTo(server.dataDir, user.email)).subject).toContain(
      "A passkey was removed",
    );
  });
});

describe("adding a second factor to an account that has one (decision 024)", () => {
  const settings = {
    title: "Site",
    welcome: "Welcome",
    contactPhone: "+1 555 0100",
    contactEmail: "contact@example.com",
  };
  const adminRule = async (token: string, on: boolean) => {
    const reply = await api.put(
      "/api/admin/settings",
      { ...settings, requireAdminSecondFactor: on },
      { token },
    );
    expect(reply.status, reply.text).toBe(200);
  };
  const appCode = (secret: string) =>
    new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) }).generate({
      timestamp: Date.now() + skew,
    });
  const auditStatus = async (token: string) =>
    (await api.get("/api/admin/audit", { token })).status;

  it("needs a session that signed in with one: a password alone never becomes an admin's session", async () => {
    const admin = await buildUser(server, api, { isAdmin: true });
    const { credential } = await addPasskey(admin);
    const strong = { ...admin, token: (await signIn(credential)).body.token };
    await adminRule(strong.token, true);
    try {
      // The password alone: a member's session, as the rule says.
      const weak = { ...admin, token: await loginAs(api, admin.email, admin.password) };
      expect(await auditStatus(weak.token)).toBe(403);
      // Not an app of its own: neither its setup, nor the confirmation of one begun elsewhere.
      const setupWeak = await api.post("/api/auth/2fa/setup", undefined, { token: weak.token });
      expectRefused(setupWeak, 403, FACTOR_FIRST);
      const setup = await api.post<{ secret: string }>("/api/auth/2fa/setup", undefined, {
        token: strong.token,
      });
      expect(setup.status, setup.text).toBe(200);
      const enableWeak = await api.post(
        "/api/auth/2fa/enable",
        { code: appCode(setup.body.secret) },
        { token: weak.token },
      );
      expectRefused(enableWeak, 403, FACTOR_FIRST);
      // Nor another passkey: neither its options, nor an answer to options begun elsewhere.
      expectRefused(
        await api.post("/api/auth/passkeys/register/options", {}, { token: weak.token }),
        403,
        FACTOR_FIRST,
      );
      const { options, challengeId } = await creationOptions(strong);
      const { response } = register(options, server.url);
      expectRefused(
        await verifyRegistration(weak, { ...response, challengeId }),
        403,
        FACTOR_FIRST,
      );
      expect(await listPasskeys(admin)).toHaveLength(1);
      expect(await auditStatus(weak.token)).toBe(403);
      // The session that signed in with the passkey adds both, and the weak one stays a member's.
      const enabled = await api.post(
        "/api/auth/2fa/enable",
        { code: appCode(setup.body.secret) },
        { token: strong.token },
      );
      expect(enabled.status, enabled.text).toBe(200);
      await addPasskey(strong);
      expect(await listPasskeys(admin)).toHaveLength(2);
      expect(await auditStatus(strong.token)).toBe(200);
      expect(await auditStatus(weak.token)).toBe(403);
    } finally {
      await adminRule(strong.token, false);
    }
  });

  it("refuses a passkey to a session older than the account's app", async () => {
    const user = await buildUser(server, api);
    const older = { ...user, token: await loginAs(api, user.email, user.password) };
    const setup = await api.post<{ secret: string }>("/api/auth/2fa/setup", undefined, {
      token: user.token,
    });
    const enable = await api.post(
      "/api/auth/2fa/enable",
      { code: appCode(setup.body.secret) },
      { token: user.token },
    );
    expect(enable.status, enable.text).toBe(200);
    expectRefused(
      await api.post("/api/auth/passkeys/register/options", {}, { token: older.token }),
      403,
      FACTOR_FIRST,
    );
    // The session that turned the app on proved it, and adds a passkey.
    await addPasskey(user);
  });
});

describe("with RATE_LIMITS=on", () => {
  let limited: TestServer;
  let limitedApi: Client;

  beforeAll(async () => {
    limited = await startTestServer({ RATE_LIMITS: "on" }, {}, "localhost");
    limitedApi = client(limited.url);
  });
  afterAll(() => limited.close());

  async function passkeyOn(target: TestServer) {
    const user = await buildUser(target, limitedApi);
    const answer = await limitedApi.post<CreationAnswer>(
      "/api/auth/passkeys/register/options",
      undefined,
      { token: user.token },
    );
    expect(answer.status, answer.text).toBe(200);
    const { response, credential } = register(answer.body.options, target.url);
    const reply = await limitedApi.post(
      "/api/auth/passkeys/register/verify",
      { ...response, challengeId: answer.body.challengeId },
      { token: user.token },
    );
    expect(reply.status, reply.text).toBe(201);
    return { user, credential };
  }

  /**
   * One passkey sign-in, options and answer from an address of its own: the options and the
   * answer both spend the per-address sign-in allowance (10 in 15 minutes), and only the
   * account's count is under test here.
   */
  async function signInFromNewAddress(credential: SoftCredential, overrides = {}) {
    const address = loopbackAddress();
    // Sent to the address the server listens on: a 127.x caller cannot reach an IPv6 localhost.
    const listening = limited.url.replace("//localhost:", "//127.0.0.1:");
    const options = await postJsonFrom(listening, "/api/auth/passkeys/login/options", {}, address);
    expect(options.status).toBe(200);
    const { options: request, challengeId } = options.body as unknown as RequestAnswer;
    const response = authenticate(request, limited.url, credential, overrides);
    return postJsonFrom(
      listening,
      "/api/auth/passkeys/login/verify",
      { ...response, challengeId },
      address,
    );
  }

  it("counts wrong passwords to remove a passkey as failed sign-ins of the account", async () => {
    const { user, credential } = await passkeyOn(limited);
    const [passkey] = (
      await limitedApi.get<PasskeyJSON[]>("/api/auth/passkeys", { token: user.token })
    ).body;
    const id = passkey?._id ?? "";
    const remove = (currentPassword: string) =>
      limitedApi.delete(`/api/auth/passkeys/${id}`, { token: user.token }, { currentPassword });
    for (let i = 0; i < 5; i += 1)
      expectRefused(await remove("Not-the-pass1!"), 400, PASSWORD_WRONG);
    const locked = await remove(user.password);
    expect(locked.status).toBe(429);
    expect(locked.body.message).toMatch(LOCKED);
    expect((await signInFromNewAddress(credential)).status).toBe(429);
  });

  it("refuses the sixth answer for an account after five bad ones, a good one too (429)", async () => {
    const { credential } = await passkeyOn(limited);
    for (let i = 0; i < 5; i += 1) {
      const reply = await signInFromNewAddress(credential, { signingKey: strangerKey() });
      expect(reply.status).toBe(400);
      expect(reply.body.message).toBe(INVALID);
    }
    const locked = await signInFromNewAddress(credential);
    expect(locked.status).toBe(429);
    expect(locked.body.message).toMatch(LOCKED);
    expect(Number(locked.headers["retry-after"])).toBe(15 * 60);
  });

  it("counts per account: another account's passkey still signs in", async () => {
    const { credential: locked } = await passkeyOn(limited);
    const { credential: fine } = await passkeyOn(limited);
    for (let i = 0; i < 5; i += 1) {
      await signInFromNewAddress(locked, { signingKey: strangerKey() });
    }
    expect((await signInFromNewAddress(locked)).status).toBe(429);
    expect((await signInFromNewAddress(fine)).status).toBe(200);
  });

  it("forgets an account's failures once its passkey signs in", async () => {
    const { credential } = await passkeyOn(limited);
    for (let round = 0; round < 2; round += 1) {
      for (let i = 0; i < 4; i += 1) {
        expect((await signInFromNewAddress(credential, { signingKey: strangerKey() })).status).toBe(
          400,
        );
      }
      expect((await signInFromNewAddress(credential)).status).toBe(200);
    }
  });
});

describe("on a site served at an IP address (decision 031)", () => {
  // PUBLIC_URL http://127.0.0.1:port: WebAuthn takes no address as its relying party.
  let atAddress: TestServer;
  let addressApi: Client;

  beforeAll(async () => {
    atAddress = await startTestServer({}, {}, "127.0.0.1");
    addressApi = client(atAddress.url);
  });
  afterAll(() => atAddress.close());

  it("answers every passkey call with 400, saying passkeys need the site's domain name", async () => {
    const user = await buildUser(atAddress, addressApi);
    const session = { token: user.token };
    const challenge = Buffer.from("a challenge of its own").toString("base64url");
    // What a browser that went ahead anyway would answer.
    const { response: made, credential } = register(
      {
        rp: { id: "127.0.0.1", name: "Blog" },
        user: { id: userHandleOf(user.id), name: user.email, displayName: user.username },
        challenge,
        pubKeyCredParams: [{ type: "public-key", alg: -7 }],
      },
      atAddress.url,
    );
    const used = authenticate({ challenge, rpId: "127.0.0.1" }, atAddress.url, credential);
    const replies = [
      await addressApi.post("/api/auth/passkeys/register/options", {}, session),
      await addressApi.post("/api/auth/passkeys/register/verify", made, session),
      await addressApi.post("/api/auth/passkeys/login/options"),
      await addressApi.post("/api/auth/passkeys/login/verify", used),
    ];
    for (const reply of replies) expectRefused(reply, 400, securityMessages.passkeysNeedDomain);
    // The list still answers (and Remove would): only adding and signing in need the domain.
    const list = await addressApi.get<PasskeyJSON[]>("/api/auth/passkeys", session);
    expect(list.status).toBe(200);
    expect(list.body).toEqual([]);
  });
});
