import type { Kysely, Migration } from "kysely";

// site_settings.newsletter_default (DESIGN.md 11, "Newsletters"; decision 028): what a new post's
// `newsletter` is when its writer does not say, "send" or "none". Sites start with "send".
export const newsletterDefault: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable("site_settings")
      .addColumn("newsletter_default", "text", (c) => c.notNull().defaultTo("send"))
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable("site_settings").dropColumn("newsletter_default").execute();
  },
};
