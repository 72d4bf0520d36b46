import { dropEvent, recordEvent, releaseEvent } from "../events/events.js";
import { SecondFactorSchema, securityMessages } from "../../contract/account-security.js";
import {
  ForgotPasswordSchema,
  LoginSchema,
  type LoginInput,
  RegisterSchema,
  ResetPasswordSchema,
} from "../../contract/auth.js";
import type { TokenKind, UsersTable } from "../../db/schema.js";
import type { CoreDeps } from "../deps.js";
import {
  emailChangeMail,
  emailChangeNoticeMail,
  passwordResetMail,
  verificationMail,
} from "../mail/templates.js";
import { presentSignedIn } from "../users/presenters.js";
import { DAY_MS, HOUR_MS, iso } from "../shared/clock.js";
import { conflict, forbidden, invalid, unavailable } from "../shared/errors.js";
import { isId, newId } from "../shared/ids.js";
import { liftEndedSuspensions } from "../users/suspension-end.js";
import { validate } from "../shared/validate.js";
import { countLoginAttempt } from "./login-attempts.js";
import { revokeUserTokens } from "../integrations/api-tokens.js";
import { forgotPasswordPath } from "../../contract/page-paths.js";
import { verifyPasskeyLogin } from "./passkeys.js";
import {
  endPendingSignIns,
  hasSecondFactor,
  notifySecurityChange,
  passSecondFactor,
  secondFactorRequired,
} from "./second-factor.js";
import { adminSecondFactorRequired } from "../site-settings/site-settings-service.js";
import { hashPassword, verifyPassword } from "./passwords.js";
import { createSession, revokeSession, revokeUserSessions } from "./sessions.js";
import { consumeToken, isTokenLive, issueToken } from "./verification-tokens.js";

export const EMAIL_TOKEN_TTL_MS = DAY_MS;
export const RESET_TOKEN_TTL_MS = HOUR_MS;

export const authMessages = {
  registered: "We sent you an email, please verify your email address",
  emailTaken: "User already exists",
  badCredentials: "Invalid email or password",
  verified: "Your email address has been successfully verified",
  invalidLink: "Invalid link",
  validLink: "Valid url",
  resetLinkSent: "Password reset link sent to your email, please check your inbox",
  passwordReset: "Password reset successfully, please log in",
  mailFailed: "We could not send the e-mail just now. Please try again in a few minutes.",
  emailInUse: "Email is already in use",
  suspended: "This account is suspended",
} as const;

export const emailKeyOf = (email: string) => email.trim().toLowerCase();

export function findUserByEmail(deps: Pick<CoreDeps, "db">, email: string) {
  return deps.db
    .selectFrom("users")
    .selectAll()
    .where("email_key", "=", emailKeyOf(email))
    .executeTakeFirst();
}

async function sendVerificationMail(deps: CoreDeps, user: UsersTable) {
  const token = await issueToken(deps, user.id, "email", EMAIL_TOKEN_TTL_MS, user.email);
  const link = `${deps.site.mailLinkUrl}/api/auth/${user.id}/verify/${token}`;
  await deps.mailer.send(verificationMail(user.email, user.username, link, deps.site.title));
}

/**
 * The address a sign-up's link went to, while the account waits to be verified: what the
 * check-your-mail page shows the browser that signed up (its proof cookie names the account).
 */
export async function pendingSignupEmail(deps: Pick<CoreDeps, "db">, userId: string) {
  const user = await deps.db
    .selectFrom("users")
    .select(["email", "is_verified"])
    .where("id", "=", userId)
    .executeTakeFirst();
  return user && user.is_verified !== 1 ? user.email : undefined;
}

/**
 * Sends a sign-up's link again (a new one; the check-your-mail page's button), while the account
 * waits to be verified; answers the address it went to, or nothing when there is nothing to send.
 */
export async function resendVerification(deps: CoreDeps, userId: string) {
  const user = await deps.db
    .selectFrom("users")
    .selectAll()
    .where("id", "=", userId)
    .executeTakeFirst();
  if (!user || user.is_verified === 1) return undefined;
  await sendVerificationMail(deps, user).catch(() => {
    throw unavailable(authMessages.mailFailed);
  });
  return user.email;
}

export interface NewUser {
  username: string;
  email: string;
  password: string;
  isAdmin?: boolean;
  isVerified?: boolean;
}

/** How long a sign-up's `user.created` waits for its verification mail to be sent. */
const SIGN_UP_HELD_MS = 10 * 60_000;

/**
 * Inserts a user; answers 409 when the address is taken, even when two sign-ups race. A sign-up
 * (`signUp`) records `user.created` with it, held until its mail is sent (a crash before that
 * lets it go after SIGN_UP_HELD_MS); an admin made at start-up or an import records none.
 */
export async function createUser(
  deps: CoreDeps,
  input: NewUser,
  options: { signUp?: boolean } = {},
): Promise<UsersTable & { eventId?: string }> {
  if (await findUserByEmail(deps, input.email)) throw conflict(authMessages.emailTaken);
  const now = iso(deps.clock());
  const user: UsersTable = {
    id: newId(),
    username: input.username,
    email: input.email.trim(),
    email_key: emailKeyOf(input.email),
    password_hash: await hashPassword(input.password),
    bio: "",
    is_admin: input.isAdmin ? 1 : 0,
    is_verified: input.isVerified ? 1 : 0,
    verified_email_key: input.isVerified ? emailKeyOf(input.email) : null,
    photo_key: null,
    social_media: "[]",
    suspended_at: null,
    suspension_reason: null,
    suspended_until: null,
    totp_secret: null,
    totp_pending_secret: null,
    totp_last_step: null,
    created_at: now,
    updated_at: now,
  };
  let eventId: string | undefined;
  try {
    await deps.db.transaction().execute(async (trx) => {
      await trx.insertInto("users").values(user).execute();
      if (options.signUp) {
        const event = { type: "user.created" as const, userId: user.id };
        eventId = await recordEvent(trx, deps, event, { heldMs: SIGN_UP_HELD_MS });
      }
    });
  } catch (error) {
    if (await findUserByEmail(deps, user.email)) throw conflict(authMessages.emailTaken);
    throw error;
  }
  return eventId === undefined ? user : { ...user, eventId };
}

/** Sign-up. Extra fields such as isAdmin are ignored: the schema keeps only what a user may set. */
export async function register(deps: CoreDeps, body: unknown) {
  const input = validate(RegisterSchema, body);
  const user = await createUser(deps, input, { signUp: true });
  try {
    await sendVerificationMail(deps, user);
  } catch {
    // No half-registered account: without the mail nobody could finish it, so undo and say so.
    await deps.db.deleteFrom("users").where("id", "=", user.id).execute();
    if (user.eventId) await dropEvent(deps, user.eventId);
    throw unavailable(authMessages.mailFailed);
  }
  if (user.eventId) await releaseEvent(deps, user.eventId);
  return { message: authMessages.registered };
}

/**
 * Opens a mailed verification link: a sign-up's (the account's address is now proven) or an
 * e-mail change's (the account moves to the new address, proven by this click). `kinds` narrows
 * which links count: a signed-in browser may only confirm a change.
 */
export async function verifyEmail(
  deps: CoreDeps,
  userId: string,
  token: string,
  kinds: readonly TokenKind[] = ["email", "email-change"],
) {
  const used = isId(userId) ? await consumeToken(deps, userId, kinds, token) : undefined;
  if (!used) throw invalid(authMessages.invalidLink);
  if (used.kind === "email-change") {
    if (!used.new_email) throw invalid(authMessages.invalidLink);
    await moveToEmail(deps, userId, used.new_email);
  } else {
    // A link proves the address it was mailed to, and only while the account still has it.
    const mailedTo = used.new_email === null ? undefined : emailKeyOf(used.new_email);
    const result = await deps.db
      .updateTable("users")
      .set((eb) => ({
        is_verified: 1,
        verified_email_key: eb.ref("email_key"),
        updated_at: iso(deps.clock()),
      }))
      .where("id", "=", userId)
      .$if(mailedTo !== undefined, (query) => query.where("email_key", "=", mailedTo ?? ""))
      .executeTakeFirst();
    if (result.numUpdatedRows !== 1n) throw invalid(authMessages.invalidLink);
  }
  return { message: authMessages.verified };
}

/**
 * Asks the owner of a new address to confirm it; the account keeps its address until then, and
 * the address being replaced is told. Nothing is stored unless both mails went out.
 */
export async function requestEmailChange(deps: CoreDeps, user: UsersTable, newEmail: string) {
  const email = newEmail.trim();
  const token = await issueToken(deps, user.id, "email-change", EMAIL_TOKEN_TTL_MS, email);
  const link = `${deps.site.mailLinkUrl}/api/auth/${user.id}/verify/${token}`;
  const resetLink = `${deps.site.mailLinkUrl}${forgotPasswordPath}`;
  try {
    await deps.mailer.send(emailChangeMail(email, user.username, link, deps.site.title));
    await deps.mailer.send(
      emailChangeNoticeMail(user.email, user.username, email, resetLink, deps.site.title),
    );
  } catch {
    await cancelEmailChange(deps, user.id);
    throw unavailable(authMessages.mailFailed);
  }
}

/** Ends a pending e-mail change: its link stops working. */
export async function cancelEmailChange(deps: Pick<CoreDeps, "db">, userId: string) {
  await deps.db
    .deleteFrom("verification_tokens")
    .where("user_id", "=", userId)
    .where("kind", "=", "email-change")
    .execute();
}

/**
 * The confirmed change: the new address (proven by the click) replaces the old one, and every
 * link mailed to the old address, or for another change, stops working. Someone may have taken the address meanwhile.
 */
async function moveToEmail(deps: CoreDeps, userId: string, email: string) {
  const emailKey = emailKeyOf(email);
  const taken = await findUserByEmail(deps, email);
  if (taken && taken.id !== userId) throw conflict(authMessages.emailInUse);
  try {
    await deps.db.transaction().execute(async (trx) => {
      await trx
        .updateTable("users")
        .set({
          email,
          email_key: emailKey,
          is_verified: 1,
          verified_email_key: emailKey,
          updated_at: iso(deps.clock()),
        })
        .where("id", "=", userId)
        .execute();
      await trx
        .deleteFrom("verification_tokens")
        .where("user_id", "=", userId)
        .where("kind", "in", ["email", "password", "email-change"])
        .execute();
    });
  } catch (error) {
    const owner = await findUserByEmail(deps, email);
    if (owner && owner.id !== userId) throw conflict(authMessages.emailInUse);
    throw error;
  }
}

/**
 * The account an e-mail and password name. Every attempt counts against the account (known or
 * not, so a refusal says nothing about which addresses exist) before the password is checked; the
 * count is cleared only once the whole sign-in succeeds (`admit`), so a right password does not
 * buy a second-factor guesser more tries.
 */
async function checkPassword(deps: CoreDeps, input: LoginInput) {
  await countLoginAttempt(deps.loginAttempts, emailKeyOf(input.email));
  const user = await findUserByEmail(deps, input.email);
  const passwordOk = await verifyPassword(user?.password_hash ?? null, input.password);
  if (!user || !passwordOk) throw invalid(authMessages.badCredentials);
  return user;
}

/**
 * Opens a session for an account that proved who it is (password and second factor, or a
 * passkey): not while it is suspended (an ended suspension is lifted first) or unverified (the
 * mail is sent again). Past the attempts limit the answer is 429 for everyone, the owner included,
 * until the window ends or the password is reset.
 */
async function admit(
  deps: CoreDeps,
  user: UsersTable,
  userAgent: string | undefined,
  secondFactor: boolean,
) {
  await deps.loginAttempts.clear(user.email_key);
  if (user.suspended_at !== null && (await liftEndedSuspensions(deps, user.id)) === 0) {
    throw forbidden(authMessages.suspended, {
      reason: user.suspension_reason,
      suspendedUntil: user.suspended_until,
    });
  }
  if (user.is_verified !== 1) {
    await sendVerificationMail(deps, user).catch(() => {
      throw unavailable(authMessages.mailFailed);
    });
    throw forbidden(authMessages.registered);
  }
  const token = await createSession(deps.db, user.id, deps.clock(), userAgent, secondFactor);
  // An admin held to the site's rule (decision 024) acts as a member in a password-only session.
  const heldBack = user.is_admin === 1 && !secondFactor && (await adminSecondFactorRequired(deps));
  return presentSignedIn(deps, heldBack ? { ...user, is_admin: 0 } : user, token);
}

/**
 * Signs in (`POST /api/auth/login`). With two-factor sign-in on, the right password alone is 401
 * "Two-factor code required" (`twoFactorRequired: true`); with `code` or `recoveryCode` as well it
 * signs in, and a wrong one is 401 and counts as a failed attempt.
 */
export async function login(deps: CoreDeps, body: unknown, userAgent?: string) {
  const input = validate(LoginSchema, body);
  const user = await checkPassword(deps, input);
  await passSecondFactor(deps, user, input);
  return admit(deps, user, userAgent, user.totp_secret !== null);
}

/** How long the web site's sign-in waits for the second factor after the password. */
export const SIGN_IN_STEP_TTL_MS = 10 * 60_000;

/**
 * The web site's sign-in: as `login`, but the right password of an account with two-factor sign-in
 * on answers a pending sign-in (a token, kept in a cookie) for the page that asks for the code.
 */
export async function signInOnSite(
  deps: CoreDeps,
  body: unknown,
  userAgent: string | undefined,
): Promise<
  { signedIn: Awaited<ReturnType<typeof admit>> } | { pending: { userId: string; token: string } }
> {
  const input = validate(LoginSchema, body);
  const user = await checkPassword(deps, input);
  if (user.totp_secret !== null && !input.code && !input.recoveryCode) {
    const token = await issueToken(deps, user.id, "sign-in", SIGN_IN_STEP_TTL_MS);
    return { pending: { userId: user.id, token } };
  }
  await passSecondFactor(deps, user, input);
  return { signedIn: await admit(deps, user, userAgent, user.totp_secret !== null) };
}

/** The second step of the web site's sign-in: the pending sign-in and a code. */
export async function finishSignInOnSite(
  deps: CoreDeps,
  pending: { userId: string; token: string },
  body: unknown,
  userAgent: string | undefined,
) {
  const input = validate(SecondFactorSchema, body);
  const live =
    isId(pending.userId) && (await isTokenLive(deps, pending.userId, "sign-in", pending.token));
  const user = live
    ? await deps.db
        .selectFrom("users")
        .selectAll()
        .where("id", "=", pending.userId)
        .executeTakeFirst()
    : undefined;
  if (!user) throw invalid(securityMessages.signInExpired);
  // An empty form is no guess: asked again, not counted.
  if (!input.code && !input.recoveryCode) throw secondFactorRequired();
  await countLoginAttempt(deps.loginAttempts, user.email_key);
  await passSecondFactor(deps, user, input);
  if (!(await consumeToken(deps, user.id, "sign-in", pending.token))) {
    throw invalid(securityMessages.signInExpired);
  }
  return admit(deps, user, userAgent, true);
}

/** Signs in with a passkey (`POST /api/auth/passkeys/login/verify`): answers as `login` does. */
export async function loginWithPasskey(deps: CoreDeps, body: unknown, userAgent?: string) {
  const userId = await verifyPasskeyLogin(deps, body);
  const user = await deps.db
    .selectFrom("users")
    .selectAll()
    .where("id", "=", userId)
    .executeTakeFirstOrThrow();
  return admit(deps, user, userAgent, true);
}

/**
 * A session for an account whose address a verification link has just confirmed, in the browser
 * that signed up (issue 33): as a sign-in would give, so never for a suspended account (an ended
 * suspension is lifted first). Undefined when it may not sign in.
 */
export async function sessionAfterVerifying(
  deps: CoreDeps,
  userId: string,
  userAgent: string | undefined,
) {
  await liftEndedSuspensions(deps, userId);
  const user = await deps.db
    .selectFrom("users")
    .select(["suspended_at", "is_verified"])
    .where("id", "=", userId)
    .executeTakeFirst();
  if (!user || user.suspended_at !== null || user.is_verified !== 1) return undefined;
  // A link proves the mailbox, not the second factor: such an account signs in as usual.
  if (await hasSecondFactor(deps.db, userId)) return undefined;
  return createSession(deps.db, userId, deps.clock(), userAgent);
}

export const logout = (deps: CoreDeps, sessionId: string) => revokeSession(deps.db, sessionId);

/** The same answer whether or not the address has an account. */
export async function sendPasswordResetLink(deps: CoreDeps, body: unknown) {
  const input = validate(ForgotPasswordSchema, body);
  const user = await findUserByEmail(deps, input.email);
  if (user) {
    const token = await issueToken(deps, user.id, "password", RESET_TOKEN_TTL_MS);
    const link = `${deps.site.mailLinkUrl}/reset-password/${user.id}/${token}`;
    await deps.mailer
      .send(passwordResetMail(user.email, user.username, link, deps.site.title))
      .catch(() => {
        throw unavailable(authMessages.mailFailed);
      });
  }
  return { message: authMessages.resetLinkSent };
}

export async function checkPasswordResetLink(deps: CoreDeps, userId: string, token: string) {
  if (!isId(userId) || !(await isTokenLive(deps, userId, "password", token))) {
    throw invalid(authMessages.invalidLink);
  }
  return { message: authMessages.validLink };
}

/** Sets the new password, ends every session of the account, and counts the mailbox as verified. */
export async function resetPassword(deps: CoreDeps, userId: string, token: string, body: unknown) {
  const { password } = validate(ResetPasswordSchema, body);
  if (!isId(userId) || !(await consumeToken(deps, userId, "password", token))) {
    throw invalid(authMessages.invalidLink);
  }
  const passwordHash = await hashPassword(password);
  await deps.db
    .updateTable("users")
    .set((eb) => ({
      password_hash: passwordHash,
      is_verified: 1,
      verified_email_key: eb.ref("email_key"),
      updated_at: iso(deps.clock()),
    }))
    .where("id", "=", userId)
    .execute();
  await revokeUserSessions(deps.db, userId);
  // A token made with the password that was lost (or stolen) would outlive it: they go too.
  const tokensRevoked = await revokeUserTokens(deps.db, userId);
  await endPendingSignIns(deps.db, userId);
  // ...and decides: an e-mail change someone else asked for (the notice mail says to reset) ends.
  await cancelEmailChange(deps, userId);
  // Whoever reads the mailbox is the owner: an account locked by someone else's guesses opens.
  const user = await deps.db
    .selectFrom("users")
    .select(["id", "email", "email_key", "username"])
    .where("id", "=", userId)
    .executeTakeFirst();
  if (user) {
    await deps.loginAttempts.clear(user.email_key);
    const revoked =
      tokensRevoked === 1
        ? "your API token was revoked"
        : `your ${String(tokensRevoked)} API tokens were revoked`;
    await notifySecurityChange(
      deps,
      user,
      "password-changed",
      tokensRevoked > 0 ? `every device signed out; ${revoked}` : "every device signed out",
    );
  }
  return { message: authMessages.passwordReset };
}
