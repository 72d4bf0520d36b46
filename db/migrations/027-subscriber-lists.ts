import type { Kysely, Migration } from "kysely";

// Owners' subscriber lists and their stats (DESIGN.md 11, "Newsletters"; decision 028): a page of
// the newest subscriptions (all of them, or one writer's) and the subscriptions confirmed in a
// range of days are read through these, never by reading the whole table.
export const subscriberLists: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createIndex("subscriptions_created")
      .on("subscriptions")
      .columns(["created_at"])
      .execute();
    await db.schema
      .createIndex("subscriptions_scope_created")
      .on("subscriptions")
      .columns(["scope_key", "created_at"])
      .execute();
    await db.schema
      .createIndex("subscriptions_confirmed")
      .on("subscriptions")
      .columns(["confirmed_at"])
      .execute();
  },

  async down(db: Kysely<unknown>) {
    for (const index of [
      "subscriptions_confirmed",
      "subscriptions_scope_created",
      "subscriptions_created",
    ]) {
      await db.schema.dropIndex(index).execute();
    }
  },
};
