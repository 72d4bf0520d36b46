import { sql, type Kysely, type Migration } from "kysely";

// Which address each account proved it reads (users.verified_email_key), and the address a mailed
// link was sent to (verification_tokens.new_email: the new address of an "email-change" token, the
// account's address of a sign-up one). Existing rows start with no proven address: before this migration a changed
// e-mail kept the old address's verified flag, so the flag says nothing about the address now.
export const verifiedAddresses: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("users").addColumn("verified_email_key", "text").execute();
    await db.schema.alterTable("verification_tokens").addColumn("new_email", "text").execute();
    // A sign-up link left over by an account that verified with another one would now prove
    // whatever address the account has moved to since: only unverified accounts keep theirs
    // (they cannot have changed their address, having never signed in).
    await sql`delete from verification_tokens where kind = 'email' and user_id in (select id from users where is_verified = 1)`.execute(
      db,
    );
  },

  async down(db: Kysely<unknown>) {
    await db.schema.alterTable("verification_tokens").dropColumn("new_email").execute();
    await db.schema.alterTable("users").dropColumn("verified_email_key").execute();
  },
};
