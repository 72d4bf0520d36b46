import type { Kysely, Migration } from "kysely";

// Following, bookmarks and notifications (decision 016). Every row names its people, posts and
// comments by foreign keys that cascade, so deleting a user, a post or a comment takes its follows,
// bookmarks and notifications with it and leaves no orphan row (DESIGN.md 4).
// - follows: who follows whom; one row per pair (the primary key), looked up both ways.
// - bookmarks: a reader's saved posts, listed most recently saved first.
// - notifications: what someone else did to you; `read_at` null until seen.
export const follows: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("follows")
      .addColumn("follower_id", "text", (c) =>
        c.notNull().references("users.id").onDelete("cascade"),
      )
      .addColumn("followee_id", "text", (c) =>
        c.notNull().references("users.id").onDelete("cascade"),
      )
      .addColumn("created_at", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("follows_pkey", ["follower_id", "followee_id"])
      .execute();
    await db.schema
      .createIndex("follows_followee_id")
      .on("follows")
      .columns(["followee_id", "follower_id"])
      .execute();

    await db.schema
      .createTable("bookmarks")
      .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
      .addColumn("post_id", "text", (c) => c.notNull().references("posts.id").onDelete("cascade"))
      .addColumn("created_at", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("bookmarks_pkey", ["user_id", "post_id"])
      .execute();
    await db.schema
      .createIndex("bookmarks_user_created_at")
      .on("bookmarks")
      .columns(["user_id", "created_at"])
      .execute();
    await db.schema.createIndex("bookmarks_post_id").on("bookmarks").column("post_id").execute();

    await db.schema
      .createTable("notifications")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("recipient_id", "text", (c) =>
        c.notNull().references("users.id").onDelete("cascade"),
      )
      .addColumn("actor_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
      .addColumn("kind", "text", (c) => c.notNull())
      .addColumn("post_id", "text", (c) => c.references("posts.id").onDelete("cascade"))
      .addColumn("comment_id", "text", (c) => c.references("comments.id").onDelete("cascade"))
      .addColumn("read_at", "text")
      .addColumn("created_at", "text", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("notifications_recipient_created_at")
      .on("notifications")
      .columns(["recipient_id", "created_at", "id"])
      .execute();
    // The cascades' lookups, and a like or follow withdrawn by its actor.
    await db.schema
      .createIndex("notifications_actor_id")
      .on("notifications")
      .columns(["actor_id", "kind"])
      .execute();
    await db.schema
      .createIndex("notifications_post_id")
      .on("notifications")
      .column("post_id")
      .execute();
    await db.schema
      .createIndex("notifications_comment_id")
      .on("notifications")
      .column("comment_id")
      .execute();
  },

  async down(db: Kysely<unknown>) {
    await db.schema.dropTable("notifications").execute();
    await db.schema.dropTable("bookmarks").execute();
    await db.schema.dropTable("follows").execute();
  },
};
