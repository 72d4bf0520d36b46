import { randomBytes } from "node:crypto";
import type { Kysely, Transaction } from "kysely";
import {
  RECOVERY_CODES_COUNT,
  securityMessages,
  TwoFactorDisableSchema,
  TwoFactorEnableSchema,
  type SecondFactorInput,
} from "../../contract/account-security.js";
import {
  apiTokensPath,
  forgotPasswordPath,
  securitySettingsPath,
} from "../../contract/page-paths.js";
import type { Database, UsersTable } from "../../db/schema.js";
import type { CoreDeps } from "../deps.js";
import { securityNoticeMail, type SecurityChange } from "../mail/templates.js";
import { iso } from "../shared/clock.js";
import { conflict, DomainError, forbidden, invalid } from "../shared/errors.js";
import { newId } from "../shared/ids.js";
import { validate } from "../shared/validate.js";
import { countLoginAttempt } from "./login-attempts.js";
import { verifyPassword } from "./passwords.js";
import { markSecondFactor, signedInRecently, type ChangingSession } from "./sessions.js";
import { hashToken } from "./tokens.js";
import { base32Encode, matchTotp, newTotpSecret, otpauthUrl } from "./totp.js";

// Two-factor sign-in with an authenticator app and its recovery codes (decision 024).

type Db = Kysely<Database> | Transaction<Database>;

/** Whether an account signs in with more than a password: an authenticator app or a passkey. */
export async function hasSecondFactor(db: Db, userId: string) {
  const row = await db
    .selectFrom("users")
    .select((eb) => [
      "users.totp_secret",
      eb
        .exists(
          eb
            .selectFrom("passkeys")
            .select("passkeys.id")
            .whereRef("passkeys.user_id", "=", "users.id"),
        )
        .as("has_passkey"),
    ])
    .where("users.id", "=", userId)
    .executeTakeFirst();
  return row !== undefined && (row.totp_secret !== null || Boolean(row.has_passkey));
}

/**
 * Mails the owner about a change to how their account signs in. The change is made already: a
 * mail that cannot go out is logged, not a reason to undo it.
 */
export async function notifySecurityChange(
  deps: Pick<CoreDeps, "mailer" | "site" | "log">,
  user: Pick<UsersTable, "id" | "email" | "username">,
  change: SecurityChange,
  detail?: string,
) {
  const links = {
    settings: `${deps.site.mailLinkUrl}${securitySettingsPath}`,
    tokens: `${deps.site.mailLinkUrl}${apiTokensPath}`,
    reset: `${deps.site.mailLinkUrl}${forgotPasswordPath}`,
  };
  const mail = securityNoticeMail(
    user.email,
    user.username,
    deps.site.title,
    change,
    detail,
    links,
  );
  await deps.mailer.send(mail).catch((error: unknown) => {
    deps.log.warn({ userId: user.id, change, error: String(error) }, "security notice not sent");
  });
}

/**
 * Adding a second factor needs a recent sign-in: a session stolen long after it signed in must
 * not be able to add its thief's app or passkey, which a password reset would not take away.
 */
export function assertRecentSignIn(deps: Pick<CoreDeps, "clock">, session: ChangingSession) {
  if (!signedInRecently(deps.clock(), session)) throw forbidden(securityMessages.signInAgain);
}

/**
 * While the account has a second factor, adding another needs a session that proved one: adding
 * a factor proves nothing, else a stolen password would add its thief's app (and, for an admin,
 * pass the site's second-factor rule). An account with none adds its first with the password.
 */
export async function assertMayAddFactor(db: Db, userId: string, session: ChangingSession) {
  if (session.secondFactor) return;
  if (await hasSecondFactor(db, userId)) throw forbidden(securityMessages.factorFirst);
}

/**
 * Takes the account's row until the transaction ends, so changes to its factors happen one at a
 * time (a no-op write: a row lock on PostgreSQL; SQLite runs one write transaction at a time).
 */
export async function lockAccount(trx: Transaction<Database>, userId: string) {
  await trx
    .updateTable("users")
    .set((eb) => ({ updated_at: eb.ref("updated_at") }))
    .where("id", "=", userId)
    .execute();
}

/**
 * A new secret for the app, kept aside until a code from it confirms it (`enableTwoFactor`): asking
 * again replaces it, and the sign-in does not change until then.
 */
export async function setupTwoFactor(deps: CoreDeps, user: UsersTable, session: ChangingSession) {
  if (user.totp_secret !== null) throw conflict(securityMessages.alreadyOn);
  assertRecentSignIn(deps, session);
  await assertMayAddFactor(deps.db, user.id, session);
  const secret = newTotpSecret();
  await deps.db
    .updateTable("users")
    .set({ totp_pending_secret: secret })
    .where("id", "=", user.id)
    .execute();
  return { secret, otpauthUrl: otpauthUrl(secret, user.email, deps.site.title) };
}

/** "abcde-fghij": 50 random bits in letters and digits that cannot be misread for each other. */
function newRecoveryCode() {
  const text = base32Encode(randomBytes(7)).slice(0, 10).toLowerCase();
  return `${text.slice(0, 5)}-${text.slice(5)}`;
}

/** A code as typed: case, spaces and hyphens do not matter. */
const recoveryKey = (code: string) => hashToken(code.replace(/[\s-]/g, "").toLowerCase());

async function replaceRecoveryCodes(db: Db, userId: string, now: string) {
  const codes = Array.from({ length: RECOVERY_CODES_COUNT }, newRecoveryCode);
  await db.deleteFrom("recovery_codes").where("user_id", "=", userId).execute();
  await db
    .insertInto("recovery_codes")
    .values(
      codes.map((code) => ({
        id: newId(),
        user_id: userId,
        code_hash: recoveryKey(code),
        created_at: now,
        used_at: null,
      })),
    )
    .execute();
  return codes;
}

/**
 * Turns two-factor sign-in on with the secret `setupTwoFactor` gave, once the app's first code
 * proves it holds it; answers the ten recovery codes, shown this once (only their hashes are kept).
 */
export async function enableTwoFactor(
  deps: CoreDeps,
  user: UsersTable,
  body: unknown,
  session: ChangingSession,
) {
  const { code } = validate(TwoFactorEnableSchema, body);
  if (user.totp_secret !== null) throw conflict(securityMessages.alreadyOn);
  const secret = user.totp_pending_secret;
  if (secret === null) throw invalid(securityMessages.setupFirst);
  const step = matchTotp(secret, code, deps.clock(), null);
  if (step === undefined) {
    throw invalid(securityMessages.codeInvalid, { code: securityMessages.codeInvalid });
  }
  const recoveryCodes = await deps.db.transaction().execute(async (trx) => {
    await lockAccount(trx, user.id);
    // Asked again here: a passkey added since the setup is a factor this session must have proven.
    await assertMayAddFactor(trx, user.id, session);
    const result = await trx
      .updateTable("users")
      .set({ totp_secret: secret, totp_pending_secret: null, totp_last_step: step })
      .where("id", "=", user.id)
      .where("totp_secret", "is", null)
      .where("totp_pending_secret", "=", secret)
      .executeTakeFirst();
    if (result.numUpdatedRows !== 1n) throw conflict(securityMessages.alreadyOn);
    // The account's first factor, just proven in this session as a sign-in with it would be. (An
    // account that had one got here only with a session that had proven it already.)
    if (!session.secondFactor) await markSecondFactor(trx, session.sessionId);
    return replaceRecoveryCodes(trx, user.id, iso(deps.clock()));
  });
  await notifySecurityChange(deps, user, "two-factor-on");
  return { recoveryCodes };
}

/** The current password, checked; a wrong one counts as a failed sign-in of the account. */
async function assertCurrentPassword(deps: CoreDeps, user: UsersTable, currentPassword: string) {
  await countLoginAttempt(deps.loginAttempts, user.email_key);
  if (!(await verifyPassword(user.password_hash, currentPassword))) {
    const message = securityMessages.currentPasswordWrong;
    throw invalid(message, { currentPassword: message });
  }
  await deps.loginAttempts.clear(user.email_key);
}

/**
 * Taking a way to sign in away needs the owner at the keyboard, not merely one of their sessions:
 * the current password, or a sign-in in the last 15 minutes standing in for it.
 */
export async function assertOwnerPresent(
  deps: CoreDeps,
  user: UsersTable,
  session: ChangingSession,
  currentPassword: string | undefined,
) {
  if (currentPassword !== undefined && currentPassword !== "") {
    await assertCurrentPassword(deps, user, currentPassword);
    return;
  }
  if (signedInRecently(deps.clock(), session)) return;
  const message = securityMessages.currentPasswordRequired;
  throw invalid(message, { currentPassword: message });
}

/** Turns two-factor sign-in off; the current password is asked, and wrong ones count as sign-in attempts. */
export async function disableTwoFactor(deps: CoreDeps, user: UsersTable, body: unknown) {
  const { currentPassword } = validate(TwoFactorDisableSchema, body);
  await assertCurrentPassword(deps, user, currentPassword);
  if (user.totp_secret === null) throw invalid(securityMessages.notOn);
  await turnOffTwoFactor(deps.db, user.id);
  await notifySecurityChange(deps, user, "two-factor-off");
}

/**
 * Forgets the app's secret and the recovery codes (also the command line's recovery); sign-ins
 * waiting for a code end with them.
 */
export async function turnOffTwoFactor(db: Kysely<Database>, userId: string) {
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable("users")
      .set({ totp_secret: null, totp_pending_secret: null, totp_last_step: null })
      .where("id", "=", userId)
      .execute();
    await trx.deleteFrom("recovery_codes").where("user_id", "=", userId).execute();
    await endPendingSignIns(trx, userId);
  });
}

/** Ends the account's sign-ins waiting for their second step (a password change ends them too). */
export async function endPendingSignIns(db: Db, userId: string) {
  await db
    .deleteFrom("verification_tokens")
    .where("user_id", "=", userId)
    .where("kind", "=", "sign-in")
    .execute();
}

/** How many of an account's recovery codes are left. */
export async function recoveryCodesLeft(deps: Pick<CoreDeps, "db">, userId: string) {
  const row = await deps.db
    .selectFrom("recovery_codes")
    .select((eb) => eb.fn.countAll<number | string>().as("count"))
    .where("user_id", "=", userId)
    .where("used_at", "is", null)
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

/** 401 with `twoFactorRequired: true`: the password was right, the second step is next. */
export const secondFactorRequired = () =>
  new DomainError("unauthenticated", securityMessages.codeRequired, undefined, {
    twoFactorRequired: true,
  });

const wrongCode = () => new DomainError("unauthenticated", securityMessages.codeInvalid);

/**
 * The second step of a sign-in of an account with two-factor sign-in on: a code from the app (each
 * accepted once: its step must be later than the last one used, claimed in one statement so two
 * requests cannot both use it) or an unused recovery code (used up, and the owner told). The caller
 * counted the attempt against the account before.
 */
export async function passSecondFactor(deps: CoreDeps, user: UsersTable, input: SecondFactorInput) {
  const secret = user.totp_secret;
  if (secret === null) return;
  if (input.code) {
    const step = matchTotp(secret, input.code, deps.clock(), user.totp_last_step);
    if (step === undefined) throw wrongCode();
    const claimed = await deps.db
      .updateTable("users")
      .set({ totp_last_step: step })
      .where("id", "=", user.id)
      .where((eb) => eb.or([eb("totp_last_step", "is", null), eb("totp_last_step", "<", step)]))
      .executeTakeFirst();
    if (claimed.numUpdatedRows !== 1n) throw wrongCode();
    return;
  }
  if (input.recoveryCode) {
    const used = await deps.db
      .updateTable("recovery_codes")
      .set({ used_at: iso(deps.clock()) })
      .where("user_id", "=", user.id)
      .where("code_hash", "=", recoveryKey(input.recoveryCode))
      .where("used_at", "is", null)
      .executeTakeFirst();
    if (used.numUpdatedRows !== 1n) throw wrongCode();
    const left = await recoveryCodesLeft(deps, user.id);
    await notifySecurityChange(deps, user, "recovery-code-used", `${String(left)} left`);
    return;
  }
  throw secondFactorRequired();
}
