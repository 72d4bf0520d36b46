import type { Kysely, Migration } from "kysely";

// Integrations (DESIGN.md 10, "Integrations"; decision 025):
// - api_tokens: personal API tokens, stored as the SHA-256 of the token; `scope` read or write;
//   `second_factor` 1 when the session that made it had proven a second factor (an admin's token
//   acts as an admin under the site's second-factor rule only then).
// - webhooks: an admin's endpoint, the events it wants (JSON array) and its signing secret, kept
//   as it is because every delivery is signed with it.
// - webhook_deliveries: the outbox. One row per event and endpoint, its body fixed when the event
//   happened; `id` is the `webhook-id` every try sends. Claimed by moving `next_attempt_at` past a
//   lease, as the mail outbox does (decision 017).
export const integrations: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("api_tokens")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("scope", "text", (c) => c.notNull())
      .addColumn("token_hash", "text", (c) => c.notNull().unique())
      .addColumn("second_factor", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("created_at", "text", (c) => c.notNull())
      .addColumn("last_used_at", "text")
      .execute();
    await db.schema.createIndex("api_tokens_user_id").on("api_tokens").column("user_id").execute();
    await db.schema
      .createTable("webhooks")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("url", "text", (c) => c.notNull())
      .addColumn("events", "text", (c) => c.notNull())
      .addColumn("secret", "text", (c) => c.notNull())
      .addColumn("created_by", "text", (c) => c.references("users.id").onDelete("set null"))
      .addColumn("created_at", "text", (c) => c.notNull())
      .execute();
    await createWebhookDeliveries(db);
  },

  async down(db: Kysely<unknown>) {
    await db.schema.dropTable("webhook_deliveries").execute();
    await db.schema.dropTable("webhooks").execute();
    await db.schema.dropTable("api_tokens").execute();
  },
};

/** webhook_deliveries as this migration made it (migration 024 makes it again going down). */
export async function createWebhookDeliveries(db: Kysely<unknown>) {
  await db.schema
    .createTable("webhook_deliveries")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("webhook_id", "text", (c) =>
      c.notNull().references("webhooks.id").onDelete("cascade"),
    )
    .addColumn("event", "text", (c) => c.notNull())
    .addColumn("payload", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull())
    .addColumn("next_attempt_at", "text")
    .addColumn("last_attempt_at", "text")
    .addColumn("response_status", "integer")
    .addColumn("last_error", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("webhook_deliveries_due")
    .on("webhook_deliveries")
    .columns(["status", "next_attempt_at"])
    .execute();
  await db.schema
    .createIndex("webhook_deliveries_webhook")
    .on("webhook_deliveries")
    .columns(["webhook_id", "created_at"])
    .execute();
}
