import type { Kysely, Migration } from "kysely";

// Conversations and moderation (decision 012).
// - comments.parent_id: the thread a reply belongs to (a top-level comment's id). Not a foreign
//   key: a thread outlives its first comment, whose place then shows "This comment was deleted".
// - users.suspended_at: when an admin suspended the account (null: not suspended).
export const conversations: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("comments").addColumn("parent_id", "text").execute();
    await db.schema.createIndex("comments_parent_id").on("comments").column("parent_id").execute();
    await db.schema.alterTable("users").addColumn("suspended_at", "text").execute();
  },

  async down(db: Kysely<unknown>) {
    await db.schema.alterTable("users").dropColumn("suspended_at").execute();
    await db.schema.dropIndex("comments_parent_id").execute();
    await db.schema.alterTable("comments").dropColumn("parent_id").execute();
  },
};
