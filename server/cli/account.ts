/**
 * Lets an account back in when it lost its second factor (decision 024; docs/operations.md):
 *
 *   npm run account -- --reset-second-factor admin@example.com
 *
 * Turns two-factor sign-in off, removes the account's passkeys and recovery codes, and ends its
 * sessions: the owner signs in with the password (or resets it by mail) and sets them up again.
 * Reads DATA_DIR and DATABASE_URL as the server does; needs the server's machine, not a session.
 */
import { parseArgs } from "node:util";
import { emailKeyOf } from "../../core/auth/auth-service.js";
import { turnOffTwoFactor } from "../../core/auth/second-factor.js";
import { revokeUserSessions } from "../../core/auth/sessions.js";
import { openSite, runCommand, siteLocation } from "./site.js";

class UsageError extends Error {}

const USAGE = "Usage: npm run account -- --reset-second-factor EMAIL";

async function accountCommand() {
  let email: string | undefined;
  try {
    email = parseArgs({
      options: { "reset-second-factor": { type: "string" } },
      allowPositionals: false,
    }).values["reset-second-factor"];
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${USAGE}`);
  }
  if (!email) throw new UsageError(USAGE);
  const site = await openSite();
  try {
    const { db } = site.database;
    const user = await db
      .selectFrom("users")
      .select(["id", "username", "is_admin"])
      .where("email_key", "=", emailKeyOf(email))
      .executeTakeFirst();
    if (!user) throw new UsageError(`No account with the e-mail address ${email}`);
    const passkeys = await db
      .deleteFrom("passkeys")
      .where("user_id", "=", user.id)
      .executeTakeFirst();
    await turnOffTwoFactor(db, user.id);
    await revokeUserSessions(db, user.id);
    process.stdout.write(
      `${user.username} (${email}, ${user.is_admin === 1 ? "admin" : "member"}) in ${siteLocation(site.config)}: ` +
        `two-factor sign-in off, ${String(passkeys.numDeletedRows)} passkey(s) removed, every session ended. ` +
        `They sign in with their password now (or reset it by mail) and set up a second factor again.\n`,
    );
  } finally {
    await site.close();
  }
}

runCommand(accountCommand, (error) => error instanceof UsageError);
