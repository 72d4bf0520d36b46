import { randomBytes } from "node:crypto";
import { USERNAME_MAX } from "../../contract/limits.js";
import { createUser, findUserByEmail } from "../auth/auth-service.js";
import { pendingEmailChange } from "../auth/verification-tokens.js";
import type { CoreDeps } from "../deps.js";
import { DomainError } from "../shared/errors.js";
import { iso } from "../shared/clock.js";
import { changingContent } from "../shared/content-changes.js";

export const DEFAULT_ADMIN_EMAIL = "admin@example.com";

export interface AdminCredentials {
  email: string;
  password: string;
}

const usernameFrom = (email: string) =>
  (email.split("@")[0] ?? "").replace(/[^a-zA-Z0-9]/g, "").slice(0, USERNAME_MAX) || "admin";

/** Meets the sign-up password rule whatever the random part holds. */
const generatePassword = () => `${randomBytes(15).toString("base64url")}aA1!`;

/** Start-up cannot go on as configured; the message says which setting and what to do. */
export class StartupRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StartupRefusal";
  }
}

const unprovenAccount = (email: string, configured: boolean) =>
  new StartupRefusal(
    `ADMIN_EMAIL: ${email}${configured ? "" : " (the default admin address, as no admin exists)"} ` +
      "belongs to an account that is not an admin and has not confirmed this address itself, or " +
      "is moving to another address, so start-up will not make it one: anyone can sign up with an " +
      "address they do not own. Set ADMIN_EMAIL to another address of yours, or delete that " +
      'account and start again. If the account is yours, open "Reset Password" on the login ' +
      "page and follow the link mailed to the address: that confirms it, signs out every session " +
      "and cancels any pending e-mail change; then start again.",
  );

/**
 * Makes sure the site has an admin. With an e-mail: that account exists, verified and admin (its
 * password is set only when it is created); an existing account is promoted only if it proved it
 * reads that address (it opened a link mailed there), otherwise start-up stops. Without one and
 * with no admin yet: one is created and its generated credentials are returned so the caller can
 * print them once.
 */
export async function ensureAdmin(
  deps: CoreDeps,
  wanted: { email?: string | undefined; password?: string | undefined },
): Promise<AdminCredentials | undefined> {
  if (!wanted.email) {
    const anyAdmin = await deps.db
      .selectFrom("users")
      .select("id")
      .where("is_admin", "=", 1)
      .executeTakeFirst();
    if (anyAdmin) return undefined;
  }
  const email = wanted.email ?? DEFAULT_ADMIN_EMAIL;
  const existing = await findUserByEmail(deps, email);
  if (existing) {
    if (existing.is_admin === 1) return undefined;
    const proven = existing.verified_email_key === existing.email_key;
    // A change on its way could move the promoted account to someone else's address.
    if (!proven || (await pendingEmailChange(deps, existing.id)) !== undefined) {
      throw unprovenAccount(email, wanted.email !== undefined);
    }
    // A new admin may become the site owner the home page shows.
    await changingContent(deps, () =>
      deps.db
        .updateTable("users")
        .set({ is_admin: 1, is_verified: 1, updated_at: iso(deps.clock()) })
        .where("id", "=", existing.id)
        .execute(),
    );
    return undefined;
  }
  const password = wanted.password ?? generatePassword();
  try {
    await changingContent(deps, () =>
      createUser(deps, {
        username: usernameFrom(email),
        email,
        password,
        isAdmin: true,
        isVerified: true,
      }),
    );
  } catch (error) {
    // Another instance starting at the same moment created it first.
    if (error instanceof DomainError && error.kind === "conflict") return undefined;
    throw error;
  }
  return wanted.password ? undefined : { email, password };
}
