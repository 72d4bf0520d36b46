import type { Kysely, Migration } from "kysely";

// Static pages (DESIGN.md 11, "Pages and series"; decision 032): an admin's About, Contact or
// colophon, a Markdown body rendered once when written (as a post's), served at `/pages/:slug`.
// `page_slugs` keeps the slugs a page had before a rename, so its old address redirects; the
// revisions keep its text before each edit. Body images a page shows are claimed by `page_id`.
export const pages: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("pages")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("slug", "text", (c) => c.notNull().unique())
      .addColumn("author_id", "text", (c) => c.references("users.id").onDelete("set null"))
      .addColumn("title", "text", (c) => c.notNull())
      .addColumn("description", "text", (c) => c.notNull())
      .addColumn("html", "text", (c) => c.notNull())
      .addColumn("excerpt", "text", (c) => c.notNull())
      .addColumn("meta_description", "text")
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("published_at", "text")
      .addColumn("created_at", "text", (c) => c.notNull())
      .addColumn("updated_at", "text", (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("page_slugs")
      .addColumn("slug", "text", (c) => c.primaryKey())
      .addColumn("page_id", "text", (c) => c.notNull().references("pages.id").onDelete("cascade"))
      .addColumn("created_at", "text", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("page_slugs_page_id").on("page_slugs").column("page_id").execute();
    await db.schema
      .createTable("page_revisions")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("page_id", "text", (c) => c.notNull().references("pages.id").onDelete("cascade"))
      .addColumn("editor_id", "text", (c) => c.references("users.id").onDelete("set null"))
      .addColumn("title", "text", (c) => c.notNull())
      .addColumn("description", "text", (c) => c.notNull())
      .addColumn("created_at", "text", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("page_revisions_page_created_at")
      .on("page_revisions")
      .columns(["page_id", "created_at", "id"])
      .execute();
    await db.schema
      .createIndex("page_revisions_editor_id")
      .on("page_revisions")
      .column("editor_id")
      .execute();
    await db.schema.alterTable("body_images").addColumn("page_id", "text").execute();
    await db.schema
      .createIndex("body_images_page_id")
      .on("body_images")
      .column("page_id")
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropIndex("body_images_page_id").execute();
    await db.schema.alterTable("body_images").dropColumn("page_id").execute();
    await db.schema.dropTable("page_revisions").execute();
    await db.schema.dropTable("page_slugs").execute();
    await db.schema.dropTable("pages").execute();
  },
};
