import type { Kysely, Migration } from "kysely";

// posts.image_alt: the writer's description of the cover image for readers who cannot see it
// (null: none given, and the title stands in for it).
export const coverAlt: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("posts").addColumn("image_alt", "text").execute();
  },

  async down(db: Kysely<unknown>) {
    await db.schema.alterTable("posts").dropColumn("image_alt").execute();
  },
};
