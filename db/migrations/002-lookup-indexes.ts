import type { Kysely, Migration } from "kysely";

// Indexes for lookups that 001 left to a scan: the site owner (the earliest admin, read by the
// home page), a post's likers in the order they liked, and the image keys the orphan sweep checks
// in batches.
export const lookupIndexes: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createIndex("users_admin_created_at")
      .on("users")
      .columns(["is_admin", "created_at", "id"])
      .execute();
    await db.schema.dropIndex("likes_post_id").execute();
    await db.schema
      .createIndex("likes_post_created_at")
      .on("likes")
      .columns(["post_id", "created_at"])
      .execute();
    await db.schema.createIndex("posts_image_key").on("posts").column("image_key").execute();
    await db.schema.createIndex("users_photo_key").on("users").column("photo_key").execute();
  },

  async down(db: Kysely<unknown>) {
    for (const index of [
      "users_photo_key",
      "posts_image_key",
      "likes_post_created_at",
      "users_admin_created_at",
    ]) {
      await db.schema.dropIndex(index).execute();
    }
    await db.schema.createIndex("likes_post_id").on("likes").column("post_id").execute();
  },
};
