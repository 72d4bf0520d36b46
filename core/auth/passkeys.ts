import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type AuthenticatorTransport,
  type RegistrationResponseJSON,
} from "@simplewebauthn/server";
import type { Kysely, Selectable } from "kysely";
import {
  PasskeyOptionsSchema,
  PasskeyRemoveSchema,
  PasskeyResponseSchema,
  securityMessages,
} from "../../contract/account-security.js";
import type { ChallengeKind, Database, PasskeysTable, UsersTable } from "../../db/schema.js";
import type { CoreDeps } from "../deps.js";
import { addMs, iso } from "../shared/clock.js";
import { conflict, DomainError, invalid, notFound } from "../shared/errors.js";
import { isId, newId } from "../shared/ids.js";
import { validate } from "../shared/validate.js";
import { countLoginAttempt } from "./login-attempts.js";
import {
  assertMayAddFactor,
  assertOwnerPresent,
  assertRecentSignIn,
  lockAccount,
  notifySecurityChange,
} from "./second-factor.js";
import { servedAtAddress } from "./relying-party.js";
import { markSecondFactor, type ChangingSession } from "./sessions.js";

// Passkeys (WebAuthn) through @simplewebauthn/server (decision 024). The relying party is
// PUBLIC_URL's host name, and only PUBLIC_URL's origin may answer.

/** How long a browser has to answer the options it was given. */
export const CHALLENGE_TTL_MS = 5 * 60_000;

/**
 * This site as WebAuthn's relying party. A site served at an IP address has none (WebAuthn takes
 * a domain name alone): every passkey call there is a 400 that says so (decision 031).
 */
const relyingParty = (deps: Pick<CoreDeps, "site">) => {
  if (servedAtAddress(deps.site.publicUrl) !== undefined) {
    throw invalid(securityMessages.passkeysNeedDomain);
  }
  const url = new URL(deps.site.publicUrl);
  return { id: url.hostname, origin: url.origin, name: deps.site.title };
};

export const presentPasskey = (row: Selectable<PasskeysTable>) => ({
  _id: row.id,
  name: row.name,
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
});

const KNOWN_TRANSPORTS = new Set<string>([
  "ble",
  "cable",
  "hybrid",
  "internal",
  "nfc",
  "smart-card",
  "usb",
]);

const transportsOf = (json: string) => {
  try {
    const list: unknown = JSON.parse(json);
    return Array.isArray(list)
      ? list.filter((item): item is AuthenticatorTransport => typeof item === "string")
      : [];
  } catch {
    return [];
  }
};

/** Keeps a challenge for the answer to come; expired ones are swept on the way. */
async function storeChallenge(
  deps: CoreDeps,
  kind: ChallengeKind,
  challenge: string,
  userId: string | null,
  name: string | null,
) {
  const now = deps.clock();
  await deps.db.deleteFrom("webauthn_challenges").where("expires_at", "<=", iso(now)).execute();
  const id = newId();
  await deps.db
    .insertInto("webauthn_challenges")
    .values({
      id,
      user_id: userId,
      kind,
      challenge,
      name,
      expires_at: iso(addMs(now, CHALLENGE_TTL_MS)),
    })
    .execute();
  return id;
}

/** The challenge the browser signed, read from its clientDataJSON (when no challengeId came along). */
function signedChallenge(response: Record<string, unknown>) {
  const clientData = response.clientDataJSON;
  if (typeof clientData !== "string" || clientData.length > 4096) return undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(clientData, "base64url").toString("utf8"));
    const challenge =
      typeof parsed === "object" && parsed !== null && "challenge" in parsed
        ? parsed.challenge
        : undefined;
    return typeof challenge === "string" ? challenge : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Takes the challenge an answer is for, once (deleted in the statement that reads it, so a replay
 * finds nothing): by the `challengeId` sent back, else by the challenge the browser signed.
 */
async function takeChallenge(
  deps: CoreDeps,
  kind: ChallengeKind,
  challengeId: string | undefined,
  response: Record<string, unknown>,
) {
  let query = deps.db.deleteFrom("webauthn_challenges").where("kind", "=", kind);
  if (challengeId !== undefined) {
    if (!isId(challengeId)) return undefined;
    query = query.where("id", "=", challengeId);
  } else {
    const challenge = signedChallenge(response);
    if (challenge === undefined) return undefined;
    query = query.where("challenge", "=", challenge);
  }
  const row = await query
    .where("expires_at", ">", iso(deps.clock()))
    .returning(["user_id", "challenge", "name"])
    .executeTakeFirst();
  return row;
}

const passkeyInvalid = () => invalid(securityMessages.passkeyInvalid);
const refused = (): never => {
  throw passkeyInvalid();
};

/** `POST /api/auth/passkeys/register/options`: what the browser needs to make a passkey. */
export async function passkeyRegistrationOptions(
  deps: CoreDeps,
  user: UsersTable,
  body: unknown,
  session: ChangingSession,
) {
  const rp = relyingParty(deps);
  const { name } = validate(PasskeyOptionsSchema, body ?? {});
  assertRecentSignIn(deps, session);
  await assertMayAddFactor(deps.db, user.id, session);
  const existing = await deps.db
    .selectFrom("passkeys")
    .select(["credential_id", "transports"])
    .where("user_id", "=", user.id)
    .execute();
  const options = await generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: user.email,
    userDisplayName: user.username,
    userID: new TextEncoder().encode(user.id),
    attestationType: "none",
    excludeCredentials: existing.map((row) => ({
      id: row.credential_id,
      transports: transportsOf(row.transports),
    })),
    // The device's lock is asked every time: a passkey stands for possession and a PIN or a
    // fingerprint, so it may replace both the password and the app's code.
    authenticatorSelection: { residentKey: "required", userVerification: "required" },
  });
  const challengeId = await storeChallenge(
    deps,
    "register",
    options.challenge,
    user.id,
    name && name !== "" ? name : null,
  );
  return { options, challengeId };
}

/** `.../register/verify`: checks the new passkey against its challenge and keeps it. */
export async function verifyPasskeyRegistration(
  deps: CoreDeps,
  user: UsersTable,
  body: unknown,
  session: ChangingSession,
) {
  const rp = relyingParty(deps);
  const { challengeId, ...response } = validate(PasskeyResponseSchema, body);
  const challenge = await takeChallenge(deps, "register", challengeId, response.response);
  if (!challenge || challenge.user_id !== user.id) throw passkeyInvalid();
  // The library's refusals (a wrong origin, a bad signature...) are one 400 for the client.
  const verified = await verifyRegistrationResponse({
    response: response as unknown as RegistrationResponseJSON,
    expectedChallenge: challenge.challenge,
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    requireUserVerification: true,
  }).catch(refused);
  if (!verified.verified) throw passkeyInvalid();
  const { credential } = verified.registrationInfo;
  const now = iso(deps.clock());
  const count = await deps.db
    .selectFrom("passkeys")
    .select((eb) => eb.fn.countAll<number | string>().as("count"))
    .where("user_id", "=", user.id)
    .executeTakeFirst();
  const row = {
    id: newId(),
    user_id: user.id,
    credential_id: credential.id,
    public_key: Buffer.from(credential.publicKey).toString("base64url"),
    counter: credential.counter,
    // As the browser named them, known names only: the list goes back out with every options.
    transports: JSON.stringify(
      (credential.transports ?? []).filter((name) => KNOWN_TRANSPORTS.has(name)),
    ),
    name: challenge.name ?? `Passkey ${String(Number(count?.count ?? 0) + 1)}`,
    created_at: now,
    last_used_at: null,
  };
  const taken = async (db: Kysely<Database>) =>
    (await db
      .selectFrom("passkeys")
      .select("id")
      .where("credential_id", "=", credential.id)
      .executeTakeFirst()) !== undefined;
  try {
    await deps.db.transaction().execute(async (trx) => {
      // One change to the account's factors at a time: a twin answer waits, then finds this one.
      await lockAccount(trx, user.id);
      if (await taken(trx)) throw conflict(securityMessages.passkeyTaken);
      // Asked again: an app turned on since the options is a factor this session must have proven.
      await assertMayAddFactor(trx, user.id, session);
      await trx.insertInto("passkeys").values(row).execute();
      // The account's first factor, just used with its lock in this session: as a sign-in with it
      // would be. (An account that had one got here only with a session that had proven it.)
      if (!session.secondFactor) await markSecondFactor(trx, session.sessionId);
    });
  } catch (error) {
    // Another account's answer with the same credential, at the same moment.
    if (!(error instanceof DomainError) && (await taken(deps.db)))
      throw conflict(securityMessages.passkeyTaken);
    throw error;
  }
  await notifySecurityChange(deps, user, "passkey-added", row.name);
  return presentPasskey(row);
}

/** `POST /api/auth/passkeys/login/options`: a challenge any of this site's passkeys may answer. */
export async function passkeyLoginOptions(deps: CoreDeps) {
  const rp = relyingParty(deps);
  const options = await generateAuthenticationOptions({
    rpID: rp.id,
    userVerification: "required",
  });
  const challengeId = await storeChallenge(deps, "login", options.challenge, null, null);
  return { options, challengeId };
}

/**
 * `.../login/verify`: the account whose passkey signed this sign-in's challenge. Counted against
 * that account's sign-in attempts like a password; the caller opens the session.
 */
export async function verifyPasskeyLogin(deps: CoreDeps, body: unknown) {
  const rp = relyingParty(deps);
  const { challengeId, ...response } = validate(PasskeyResponseSchema, body);
  const challenge = await takeChallenge(deps, "login", challengeId, response.response);
  if (!challenge) throw passkeyInvalid();
  const found = await deps.db
    .selectFrom("passkeys")
    .innerJoin("users", "users.id", "passkeys.user_id")
    .selectAll("passkeys")
    .select("users.email_key")
    .where("passkeys.credential_id", "=", response.id)
    .executeTakeFirst();
  if (!found) throw invalid(securityMessages.passkeyUnknown);
  await countLoginAttempt(deps.loginAttempts, found.email_key);
  // A discoverable passkey names its account: it must be the one this credential belongs to.
  const userHandle = response.response.userHandle;
  if (
    typeof userHandle === "string" &&
    Buffer.from(userHandle, "base64url").toString("utf8") !== found.user_id
  ) {
    throw passkeyInvalid();
  }
  // The library's refusals (a wrong origin, a bad signature...) are one 400 for the client.
  const verified = await verifyAuthenticationResponse({
    response: response as unknown as AuthenticationResponseJSON,
    expectedChallenge: challenge.challenge,
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    credential: {
      id: found.credential_id,
      publicKey: new Uint8Array(Buffer.from(found.public_key, "base64url")),
      counter: Number(found.counter),
      transports: transportsOf(found.transports),
    },
    requireUserVerification: true,
  }).catch(refused);
  if (!verified.verified) throw passkeyInvalid();
  await deps.db
    .updateTable("passkeys")
    .set({ counter: verified.authenticationInfo.newCounter, last_used_at: iso(deps.clock()) })
    .where("id", "=", found.id)
    .execute();
  await deps.loginAttempts.clear(found.email_key);
  return found.user_id;
}

export async function listPasskeys(deps: Pick<CoreDeps, "db">, userId: string) {
  const rows = await deps.db
    .selectFrom("passkeys")
    .selectAll()
    .where("user_id", "=", userId)
    .orderBy("created_at")
    .orderBy("id")
    .execute();
  return rows.map(presentPasskey);
}

/**
 * Removes one of the account's passkeys (404 for an id that is not one of them), as turning
 * two-factor sign-in off does: with the current password or a recent sign-in, and the owner told.
 */
export async function removePasskey(
  deps: CoreDeps,
  user: UsersTable,
  id: string,
  body: unknown,
  session: ChangingSession,
) {
  const { currentPassword } = validate(PasskeyRemoveSchema, body ?? {});
  await assertOwnerPresent(deps, user, session, currentPassword);
  const removed = isId(id)
    ? await deps.db
        .deleteFrom("passkeys")
        .where("id", "=", id)
        .where("user_id", "=", user.id)
        .returning("name")
        .executeTakeFirst()
    : undefined;
  if (!removed) throw notFound(securityMessages.passkeyNotFound);
  await notifySecurityChange(deps, user, "passkey-removed", removed.name);
}
