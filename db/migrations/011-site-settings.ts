import type { Kysely, Migration } from "kysely";

// Site settings (decision 020): one row (id "site") once an admin first saves them; until then
// the SITE_* variables are the values. logo_key names an image of the normal pipeline.
export const siteSettings: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("site_settings")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("title", "text", (c) => c.notNull())
      .addColumn("welcome", "text", (c) => c.notNull())
      .addColumn("contact_phone", "text", (c) => c.notNull())
      .addColumn("contact_email", "text", (c) => c.notNull())
      .addColumn("logo_key", "text")
      .addColumn("updated_at", "text", (c) => c.notNull())
      .execute();
  },

  async down(db: Kysely<unknown>) {
    await db.schema.dropTable("site_settings").execute();
  },
};
