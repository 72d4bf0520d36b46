import type { Kysely, Migration } from "kysely";

// Writers' stats (DESIGN.md 10, "Writers' stats"; decision 026). Counts only, one row per post
// (author, site) and UTC day, added to in batches by every instance:
// - post_views_daily, author_views_daily, site_views_daily: views and unique visitors a day. A
//   writer's visitors are counted across their posts, the site's across all posts (a reader of
//   two posts is one visitor of the writer and of the site).
// - post_referrers_daily: the other sites readers came from, by host name.
// - stats_visitors: the day's visitor hashes per post, writer and site, so that a reader counted by
//   one batch or instance is not counted again by another; deleted the day after.
// - stats_salts: the random salt of a day's visitor hashes, deleted once the day is over (so a
//   hash can no longer be made again from an address and a user agent).
export const stats: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("post_views_daily")
      .addColumn("post_id", "text", (c) => c.notNull().references("posts.id").onDelete("cascade"))
      .addColumn("day", "text", (c) => c.notNull())
      .addColumn("views", "integer", (c) => c.notNull())
      .addColumn("visitors", "integer", (c) => c.notNull())
      .addPrimaryKeyConstraint("post_views_daily_pk", ["post_id", "day"])
      .execute();
    await db.schema
      .createTable("author_views_daily")
      .addColumn("author_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
      .addColumn("day", "text", (c) => c.notNull())
      .addColumn("views", "integer", (c) => c.notNull())
      .addColumn("visitors", "integer", (c) => c.notNull())
      .addPrimaryKeyConstraint("author_views_daily_pk", ["author_id", "day"])
      .execute();
    await db.schema
      .createTable("site_views_daily")
      .addColumn("day", "text", (c) => c.primaryKey())
      .addColumn("views", "integer", (c) => c.notNull())
      .addColumn("visitors", "integer", (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("post_referrers_daily")
      .addColumn("post_id", "text", (c) => c.notNull().references("posts.id").onDelete("cascade"))
      .addColumn("day", "text", (c) => c.notNull())
      .addColumn("host", "text", (c) => c.notNull())
      .addColumn("views", "integer", (c) => c.notNull())
      .addPrimaryKeyConstraint("post_referrers_daily_pk", ["post_id", "day", "host"])
      .execute();
    await db.schema
      .createTable("stats_visitors")
      .addColumn("day", "text", (c) => c.notNull())
      .addColumn("scope", "text", (c) => c.notNull())
      .addColumn("visitor", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("stats_visitors_pk", ["day", "scope", "visitor"])
      .execute();
    await db.schema
      .createTable("stats_salts")
      .addColumn("day", "text", (c) => c.primaryKey())
      .addColumn("salt", "text", (c) => c.notNull())
      .execute();
  },

  async down(db: Kysely<unknown>) {
    for (const table of [
      "stats_salts",
      "stats_visitors",
      "post_referrers_daily",
      "site_views_daily",
      "author_views_daily",
      "post_views_daily",
    ]) {
      await db.schema.dropTable(table).execute();
    }
  },
};
