import type { Kysely, Migration } from "kysely";

// Conversations and moderation (decision 012).
// - comments.parent_id: the thread a reply belongs to (a top-level comment's id). Not a foreign
//   key: a thread outlives its first comment, whose place then shows "This comment was deleted".
// - users.suspended_at: when an admin suspended the account (null: not suspended).
// - audit_log: every admin action, written in the action's transaction. No foreign keys: the log
//   outlives the accounts and things it names, so it keeps their names as they were.
export const conversations: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("comments").addColumn("parent_id", "text").execute();
    await db.schema.createIndex("comments_parent_id").on("comments").column("parent_id").execute();
    await db.schema.alterTable("users").addColumn("suspended_at", "text").execute();
    await db.schema
      .createTable("audit_log")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("actor_id", "text", (c) => c.notNull())
      .addColumn("actor_name", "text", (c) => c.notNull())
      .addColumn("action", "text", (c) => c.notNull())
      .addColumn("target_kind", "text", (c) => c.notNull())
      .addColumn("target_id", "text", (c) => c.notNull())
      .addColumn("target_summary", "text", (c) => c.notNull())
      .addColumn("created_at", "text", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("audit_log_created_at")
      .on("audit_log")
      .columns(["created_at", "id"])
      .execute();
  },

  async down(db: Kysely<unknown>) {
    await db.schema.dropTable("audit_log").execute();
    await db.schema.alterTable("users").dropColumn("suspended_at").execute();
    await db.schema.dropIndex("comments_parent_id").execute();
    await db.schema.alterTable("comments").dropColumn("parent_id").execute();
  },
};
