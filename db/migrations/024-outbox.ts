import { sql, type Kysely, type Migration } from "kysely";
import { createMailEvents, createMailOutbox, indexMailEvents } from "./010-mail-outbox.js";
import { createWebhookDeliveries } from "./022-integrations.js";

// One outbox (decision 027). Conversation mail (mail_outbox) and webhook deliveries
// (webhook_deliveries) move into one table, beside the events that feed them:
// - channel: "event" (something happened; its dispatch fans it out), "mail", "webhook", and the
//   channels to come. topic: the event's type, or what a delivery is ("conversation", an event).
// - recipient_id and webhook_id: whom a delivery goes to, each with its own cascade, so a deleted
//   account or endpoint takes its waiting deliveries with it.
// - next_attempt_at: when the next try is due, and the lease of the instance trying it; null once
//   finished (finished_at). status: pending, delivered, skipped or failed.
// mail_events now point into this table. Going down moves the mail and webhook rows back; events
// still waiting are dropped with the table.

const createOutbox = async (db: Kysely<unknown>) => {
  await db.schema
    .createTable("outbox")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("channel", "text", (c) => c.notNull())
    .addColumn("topic", "text", (c) => c.notNull())
    .addColumn("recipient_id", "text", (c) => c.references("users.id").onDelete("cascade"))
    .addColumn("webhook_id", "text", (c) => c.references("webhooks.id").onDelete("cascade"))
    .addColumn("payload", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("next_attempt_at", "text")
    .addColumn("last_attempt_at", "text")
    .addColumn("response_status", "integer")
    .addColumn("last_error", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("finished_at", "text")
    .execute();
  // Not partial: a claim's status comes as a bound parameter, which a partial index on SQLite
  // cannot be proven to cover.
  await db.schema
    .createIndex("outbox_due")
    .on("outbox")
    .columns(["channel", "status", "next_attempt_at"])
    .execute();
  await db.schema
    .createIndex("outbox_finished")
    .on("outbox")
    .columns(["channel", "finished_at"])
    .execute();
  await db.schema
    .createIndex("outbox_webhook")
    .on("outbox")
    .columns(["webhook_id", "created_at"])
    .execute();
  await db.schema.createIndex("outbox_recipient").on("outbox").column("recipient_id").execute();
};

/** mail_events again, its mail_id pointing at `mails` (a rebuild: SQLite cannot alter a key). */
const rebuildMailEvents = async (db: Kysely<unknown>, mails: string) => {
  await createMailEvents(db, "mail_events_moved", mails);
  await sql`insert into mail_events_moved (id, recipient_id, comment_id, kind, mail_id, created_at)
    select id, recipient_id, comment_id, kind, mail_id, created_at from mail_events`.execute(db);
  await db.schema.dropTable("mail_events").execute();
  await db.schema.alterTable("mail_events_moved").renameTo("mail_events").execute();
  await indexMailEvents(db);
};

export const outbox: Migration = {
  async up(db: Kysely<unknown>) {
    await createOutbox(db);
    await sql`insert into outbox (id, channel, topic, recipient_id, payload, status, attempts,
        next_attempt_at, created_at, finished_at)
      select id, 'mail', 'conversation', recipient_id, '',
        case when sent_at is null then 'pending' when outcome = 'skipped' then 'skipped'
          else 'delivered' end,
        attempts, case when sent_at is null then next_attempt_at end, created_at, sent_at
      from mail_outbox`.execute(db);
    await sql`insert into outbox (id, channel, topic, webhook_id, payload, status, attempts,
        next_attempt_at, last_attempt_at, response_status, last_error, created_at, finished_at)
      select id, 'webhook', event, webhook_id, payload, status, attempts, next_attempt_at,
        last_attempt_at, response_status, last_error, created_at,
        case when status <> 'pending' then coalesce(last_attempt_at, created_at) end
      from webhook_deliveries`.execute(db);
    await rebuildMailEvents(db, "outbox");
    await db.schema.dropTable("mail_outbox").execute();
    await db.schema.dropTable("webhook_deliveries").execute();
  },

  async down(db: Kysely<unknown>) {
    await createMailOutbox(db);
    await sql`insert into mail_outbox (id, recipient_id, attempts, next_attempt_at, sent_at,
        outcome, created_at)
      select id, recipient_id, attempts, coalesce(next_attempt_at, created_at), finished_at,
        case status when 'pending' then null when 'skipped' then 'skipped' else 'sent' end,
        created_at
      from outbox where channel = 'mail' and recipient_id is not null`.execute(db);
    await createWebhookDeliveries(db);
    await sql`insert into webhook_deliveries (id, webhook_id, event, payload, status, attempts,
        next_attempt_at, last_attempt_at, response_status, last_error, created_at)
      select id, webhook_id, topic, payload,
        case status when 'skipped' then 'failed' else status end,
        attempts, next_attempt_at, last_attempt_at,
        response_status, last_error, created_at
      from outbox where channel = 'webhook' and webhook_id is not null`.execute(db);
    await rebuildMailEvents(db, "mail_outbox");
    await db.schema.dropTable("outbox").execute();
  },
};
