import type { Kysely, Migration } from "kysely";

// Series (DESIGN.md 11, "Pages and series"; decision 032): a writer's own posts in an order they
// choose. A post names its series and its place in it (`series_position`, ascending; gaps are
// fine: readers' numbers are counted, not stored), so a post is in one series at most and every
// list reads its series with the post. A series goes with its writer's account.
export const series: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("series")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
      .addColumn("title", "text", (c) => c.notNull())
      .addColumn("description", "text", (c) => c.notNull())
      .addColumn("created_at", "text", (c) => c.notNull())
      .addColumn("updated_at", "text", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("series_user_created_at")
      .on("series")
      .columns(["user_id", "created_at", "id"])
      .execute();
    await db.schema
      .alterTable("posts")
      .addColumn("series_id", "text", (c) => c.references("series.id").onDelete("set null"))
      .execute();
    await db.schema.alterTable("posts").addColumn("series_position", "integer").execute();
    await db.schema
      .createIndex("posts_series_position")
      .on("posts")
      .columns(["series_id", "series_position", "id"])
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropIndex("posts_series_position").execute();
    await db.schema.alterTable("posts").dropColumn("series_position").execute();
    await db.schema.alterTable("posts").dropColumn("series_id").execute();
    await db.schema.dropTable("series").execute();
  },
};
