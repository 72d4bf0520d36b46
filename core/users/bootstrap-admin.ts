import { randomBytes } from "node:crypto";
import { USERNAME_MAX } from "../../contract/limits.js";
import { createUser, findUserByEmail } from "../auth/auth-service.js";
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

/**
 * Makes sure the site has an admin. With an e-mail: that account exists, verified and admin (its
 * password is set only when it is created). Without one and with no admin yet: one is created and
 * its generated credentials are returned so the caller can print them once.
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
