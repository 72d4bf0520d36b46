import type { Kysely, Migration } from "kysely";

// Issue 33 (decision 023):
// - users.suspension_reason: what the admin told the member when suspending them (null: none given).
// - users.suspended_until: when the suspension lifts by itself (null: until an admin restores).
// - site_settings.social_links: the footer's social links, a JSON object of network → URL ('{}':
//   none, the footer shows the contact e-mail only).
// - site_settings.logo_width, logo_height: the logo's size, so the header sizes it before it loads
//   (null for a logo saved before: the header then gives it its height only).
export const suspensionTerms: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("users").addColumn("suspension_reason", "text").execute();
    await db.schema.alterTable("users").addColumn("suspended_until", "text").execute();
    await db.schema
      .alterTable("site_settings")
      .addColumn("social_links", "text", (c) => c.notNull().defaultTo("{}"))
      .execute();
    await db.schema.alterTable("site_settings").addColumn("logo_width", "integer").execute();
    await db.schema.alterTable("site_settings").addColumn("logo_height", "integer").execute();
  },

  async down(db: Kysely<unknown>) {
    await db.schema.alterTable("site_settings").dropColumn("logo_height").execute();
    await db.schema.alterTable("site_settings").dropColumn("logo_width").execute();
    await db.schema.alterTable("site_settings").dropColumn("social_links").execute();
    await db.schema.alterTable("users").dropColumn("suspended_until").execute();
    await db.schema.alterTable("users").dropColumn("suspension_reason").execute();
  },
};
