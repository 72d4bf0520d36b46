import type { Kysely, Migration } from "kysely";

// site_settings.navigation (DESIGN.md 11, "Pages and series"; decision 032): the header's and
// footer's links as the admin set them, JSON `{header: [{label, url}], footer: [...]}`. NULL until
// an admin saves them: the site then shows the defaults (the footer's links of before).
export const navigation: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("site_settings").addColumn("navigation", "text").execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable("site_settings").dropColumn("navigation").execute();
  },
};
