import { sql, type Kysely, type Migration } from "kysely";

// Newsletters (DESIGN.md 11, "Newsletters"; decision 028):
// - subscriptions: an address subscribed to the whole site or to one writer. `scope_key` is
//   "site" or the writer's id, so one address has at most one subscription of each (a plain
//   unique index would let NULL author ids repeat).
// - newsletter_confirmations: when a confirmation mail went to an address (at most 3 a day).
// - newsletter_sends: a post mailed to its subscribers, once ever (the primary key is the rule).
// - posts.newsletter: "send" or "none", what the writer chose; rows from before it are "none".
export const newsletter: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("subscriptions")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("email", "text", (c) => c.notNull())
      .addColumn("scope_key", "text", (c) => c.notNull())
      .addColumn("author_id", "text", (c) => c.references("users.id").onDelete("cascade"))
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("created_at", "text", (c) => c.notNull())
      .addColumn("confirmed_at", "text")
      .addColumn("ended_at", "text")
      .execute();
    await db.schema
      .createIndex("subscriptions_address")
      .on("subscriptions")
      .columns(["email", "scope_key"])
      .unique()
      .execute();
    await db.schema
      .createIndex("subscriptions_scope")
      .on("subscriptions")
      .columns(["scope_key", "status"])
      .execute();
    await db.schema
      .createIndex("subscriptions_status")
      .on("subscriptions")
      .columns(["status", "created_at"])
      .execute();
    await db.schema
      .createTable("newsletter_confirmations")
      .addColumn("email", "text", (c) => c.notNull())
      .addColumn("sent_at", "text", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("newsletter_confirmations_address")
      .on("newsletter_confirmations")
      .columns(["email", "sent_at"])
      .execute();
    await db.schema
      .createTable("newsletter_sends")
      .addColumn("post_id", "text", (c) =>
        c.primaryKey().references("posts.id").onDelete("cascade"),
      )
      .addColumn("started_at", "text", (c) => c.notNull())
      .addColumn("recipients", "integer", (c) => c.notNull())
      .execute();
    await db.schema
      .alterTable("posts")
      .addColumn("newsletter", "text", (c) => c.notNull().defaultTo(sql.lit("none")))
      .execute();
  },

  async down(db: Kysely<unknown>) {
    await db.schema.alterTable("posts").dropColumn("newsletter").execute();
    await sql`DELETE FROM outbox WHERE channel = 'newsletter'`.execute(db);
    for (const table of ["newsletter_sends", "newsletter_confirmations", "subscriptions"]) {
      await db.schema.dropTable(table).execute();
    }
  },
};
