import { sql, type Kysely, type Migration } from "kysely";

/** The indexes of 001 that ordered lists by creation time, replaced below. */
const CREATED_AT_INDEXES = [
  ["posts_created_at", ["created_at", "id"]],
  ["posts_category_created_at", ["category", "created_at", "id"]],
  ["posts_user_created_at", ["user_id", "created_at", "id"]],
] as const;

// Drafts and scheduling (decision 011): a post is `published`, `draft` or `scheduled` (with
// `publish_at`); `published_at` is the time of its first publication, which public lists are
// ordered by. Every post written before was published when it was created.
//
// Public lists read `status = 'published'` in publication order, so the list indexes lead with the
// status (a category's or an author's list after its own column): a page and a count read one
// range of an index, drafts never in the way. The scheduler's look-up reads (status, publish_at).
export const postStatus: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable("posts")
      .addColumn("status", "text", (column) => column.notNull().defaultTo("published"))
      .execute();
    await db.schema.alterTable("posts").addColumn("publish_at", "text").execute();
    await db.schema.alterTable("posts").addColumn("published_at", "text").execute();
    await sql`UPDATE posts SET published_at = created_at`.execute(db);

    for (const [name] of CREATED_AT_INDEXES) await db.schema.dropIndex(name).execute();
    await db.schema
      .createIndex("posts_status_published_at")
      .on("posts")
      .columns(["status", "published_at", "id"])
      .execute();
    await db.schema
      .createIndex("posts_category_status_published_at")
      .on("posts")
      .columns(["category", "status", "published_at", "id"])
      .execute();
    await db.schema
      .createIndex("posts_user_status_published_at")
      .on("posts")
      .columns(["user_id", "status", "published_at", "id"])
      .execute();
    await db.schema
      .createIndex("posts_status_publish_at")
      .on("posts")
      .columns(["status", "publish_at"])
      .execute();
  },

  async down(db: Kysely<unknown>) {
    for (const index of [
      "posts_status_publish_at",
      "posts_user_status_published_at",
      "posts_category_status_published_at",
      "posts_status_published_at",
    ]) {
      await db.schema.dropIndex(index).execute();
    }
    for (const [name, columns] of CREATED_AT_INDEXES) {
      await db.schema
        .createIndex(name)
        .on("posts")
        .columns([...columns])
        .execute();
    }
    for (const column of ["published_at", "publish_at", "status"]) {
      await db.schema.alterTable("posts").dropColumn(column).execute();
    }
  },
};
