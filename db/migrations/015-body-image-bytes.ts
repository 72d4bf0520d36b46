import type { Kysely, Migration } from "kysely";

// The daily quota of body images per account (contract/limits.ts) counts what each upload stored,
// all its widths: `bytes` (0 for rows from before it was counted, and for a blog import's, which are
// dated at their source). The index finds an account's uploads of the last day, claimed or not.
export const bodyImageBytes: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable("body_images")
      .addColumn("bytes", "integer", (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .createIndex("body_images_uploader_created")
      .on("body_images")
      .columns(["uploader_id", "created_at"])
      .execute();
  },

  async down(db: Kysely<unknown>) {
    await db.schema.dropIndex("body_images_uploader_created").execute();
    await db.schema.alterTable("body_images").dropColumn("bytes").execute();
  },
};
