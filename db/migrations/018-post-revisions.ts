import type { Kysely, Migration } from "kysely";

// Revisions (DESIGN.md 10, "Writing"; decision 022): the title, body, category and tags a post
// had before an edit changed any of them, with when the edit was made and by whom. Deleting the
// post takes its revisions along; deleting the editor's account keeps them, without a name.
export const postRevisions: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("post_revisions")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("post_id", "text", (c) => c.notNull().references("posts.id").onDelete("cascade"))
      .addColumn("editor_id", "text", (c) => c.references("users.id").onDelete("set null"))
      .addColumn("title", "text", (c) => c.notNull())
      .addColumn("description", "text", (c) => c.notNull())
      .addColumn("category", "text", (c) => c.notNull())
      .addColumn("tags", "text", (c) => c.notNull())
      .addColumn("created_at", "text", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("post_revisions_post_created_at")
      .on("post_revisions")
      .columns(["post_id", "created_at", "id"])
      .execute();
    await db.schema
      .createIndex("post_revisions_editor_id")
      .on("post_revisions")
      .column("editor_id")
      .execute();
  },

  async down(db: Kysely<unknown>) {
    await db.schema.dropTable("post_revisions").execute();
  },
};
