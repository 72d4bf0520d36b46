import { sql, type Kysely, type Migration } from "kysely";

// Conversations and moderation (decision 013).
// - comments.parent_id: the thread a reply belongs to (a top-level comment's id). Not a foreign
//   key: a thread outlives its first comment, whose place then shows "This comment was deleted".
// - users.suspended_at: when an admin suspended the account (null: not suspended).
// - audit_log: every admin action, written in the action's transaction. No foreign keys: the log
//   outlives the accounts and things it names, so it keeps their names as they were.
// - reports: what members reported, kept once decided. The target is named by kind and id (it may
//   be removed since), with its author and a summary taken when it was reported. One open report
//   per reporter and target: a partial unique index, so two clicks at once cannot both count.
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
    await db.schema
      .createTable("reports")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("reporter_id", "text", (c) =>
        c.notNull().references("users.id").onDelete("cascade"),
      )
      .addColumn("target_kind", "text", (c) => c.notNull())
      .addColumn("target_id", "text", (c) => c.notNull())
      .addColumn("target_user_id", "text")
      .addColumn("target_summary", "text", (c) => c.notNull())
      .addColumn("reason", "text", (c) => c.notNull())
      .addColumn("note", "text", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("decision", "text")
      .addColumn("decided_by", "text")
      .addColumn("decided_by_name", "text")
      .addColumn("decided_at", "text")
      .addColumn("created_at", "text", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("reports_one_open")
      .on("reports")
      .columns(["reporter_id", "target_kind", "target_id"])
      .unique()
      .where(sql.ref("status"), "=", "open")
      .execute();
    await db.schema
      .createIndex("reports_target")
      .on("reports")
      .columns(["target_kind", "target_id", "status"])
      .execute();
    await db.schema
      .createIndex("reports_status_created_at")
      .on("reports")
      .columns(["status", "created_at"])
      .execute();
  },

  async down(db: Kysely<unknown>) {
    await db.schema.dropTable("reports").execute();
    await db.schema.dropTable("audit_log").execute();
    await db.schema.alterTable("users").dropColumn("suspended_at").execute();
    await db.schema.dropIndex("comments_parent_id").execute();
    await db.schema.alterTable("comments").dropColumn("parent_id").execute();
  },
};
