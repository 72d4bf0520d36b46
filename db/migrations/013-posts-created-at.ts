import type { Kysely, Migration } from "kysely";

// The admin table lists every post whatever its state, newest created first (decision 011). 005
// led every list index with the status, so that list read the whole table and sorted it: this
// index walks it in order instead, and a page reads its rows alone.
export const postsCreatedAt: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createIndex("posts_created_at_id")
      .on("posts")
      .columns(["created_at", "id"])
      .execute();
  },

  async down(db: Kysely<unknown>) {
    await db.schema.dropIndex("posts_created_at_id").execute();
  },
};
