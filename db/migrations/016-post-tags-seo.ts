import type { Kysely, Migration } from "kysely";

// Tags and the search-engine fields of a post (issue 32, DESIGN.md 10 "Writing").
// - posts.tags: the post's tags, lowercase, space-separated in the writer's order ('' for none):
//   what every list and page shows, read with the post's row and no other query.
// - post_tags: the same tags one row each, what a tag's list (`?tag=`, `/tags/:name`) and the tag
//   counts (`GET /api/tags`) read through their index. Both are written in one transaction.
// - posts.meta_description, posts.canonical_url: null unless the writer set them.
export const postTagsSeo: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable("posts")
      .addColumn("tags", "text", (c) => c.notNull().defaultTo(""))
      .execute();
    await db.schema.alterTable("posts").addColumn("meta_description", "text").execute();
    await db.schema.alterTable("posts").addColumn("canonical_url", "text").execute();
    await db.schema
      .createTable("post_tags")
      .addColumn("post_id", "text", (c) => c.notNull().references("posts.id").onDelete("cascade"))
      .addColumn("tag", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("post_tags_pkey", ["post_id", "tag"])
      .execute();
    await db.schema
      .createIndex("post_tags_tag")
      .on("post_tags")
      .columns(["tag", "post_id"])
      .execute();
  },

  async down(db: Kysely<unknown>) {
    await db.schema.dropTable("post_tags").execute();
    await db.schema.alterTable("posts").dropColumn("canonical_url").execute();
    await db.schema.alterTable("posts").dropColumn("meta_description").execute();
    await db.schema.alterTable("posts").dropColumn("tags").execute();
  },
};
