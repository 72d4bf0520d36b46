import type { Kysely, Migration } from "kysely";

// Which address each account proved it reads (users.verified_email_key), and the address an
// e-mail change waits to confirm (verification_tokens.new_email, on tokens of kind
// "email-change"). Existing rows start with no proven address: before this migration a changed
// e-mail kept the old address's verified flag, so the flag says nothing about the address now.
export const verifiedAddresses: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("users").addColumn("verified_email_key", "text").execute();
    await db.schema.alterTable("verification_tokens").addColumn("new_email", "text").execute();
  },

  async down(db: Kysely<unknown>) {
    await db.schema.alterTable("verification_tokens").dropColumn("new_email").execute();
    await db.schema.alterTable("users").dropColumn("verified_email_key").execute();
  },
};
