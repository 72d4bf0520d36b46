import { randomBytes } from "node:crypto";
import { sql, type Kysely, type Migration } from "kysely";

// E-mail about conversations (decision 017).
// - user_settings: a person's choices; no row means the defaults (mail on).
// - site_secrets: keys the site signs with, kept in the database so every instance agrees; the
//   unsubscribe key is made here, once.
// - mail_digests: per recipient, when their next mail is due (null: nothing waiting) and until when
//   the last one keeps the next away. Claimed by a conditional update: one mail per window.
// - mail_outbox: one row per mail to send; `next_attempt_at` is both the retry time and the lease
//   of the instance sending it; `sent_at` marks it done.
// - mail_events: what a mail tells about (a comment on your post, a reply to yours); `mail_id` is
//   null while it waits for its mail. Deleting the comment deletes its event.
export const mailOutbox: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("user_settings")
      .addColumn("user_id", "text", (c) =>
        c.primaryKey().references("users.id").onDelete("cascade"),
      )
      .addColumn("email_notifications", "integer", (c) => c.notNull().defaultTo(1))
      .addColumn("updated_at", "text", (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("site_secrets")
      .addColumn("name", "text", (c) => c.primaryKey())
      .addColumn("value", "text", (c) => c.notNull())
      .execute();
    await sql`insert into site_secrets (name, value) values (${"unsubscribe"}, ${randomBytes(32).toString("base64url")})`.execute(
      db,
    );
    await db.schema
      .createTable("mail_digests")
      .addColumn("recipient_id", "text", (c) =>
        c.primaryKey().references("users.id").onDelete("cascade"),
      )
      .addColumn("due_at", "text")
      .addColumn("quiet_until", "text")
      .execute();
    await db.schema
      .createIndex("mail_digests_due_at")
      .on("mail_digests")
      .column("due_at")
      .execute();
    await createMailOutbox(db);
    await createMailEvents(db, "mail_events", "mail_outbox");
    await indexMailEvents(db);
  },

  async down(db: Kysely<unknown>) {
    await db.schema.dropTable("mail_events").execute();
    await db.schema.dropTable("mail_outbox").execute();
    await db.schema.dropTable("mail_digests").execute();
    await db.schema.dropTable("site_secrets").execute();
    await db.schema.dropTable("user_settings").execute();
  },
};

/** mail_outbox as this migration made it (migration 024 makes it again going down). */
export async function createMailOutbox(db: Kysely<unknown>) {
  await db.schema
    .createTable("mail_outbox")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("recipient_id", "text", (c) =>
      c.notNull().references("users.id").onDelete("cascade"),
    )
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("next_attempt_at", "text", (c) => c.notNull())
    .addColumn("sent_at", "text")
    .addColumn("outcome", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("mail_outbox_waiting")
    .on("mail_outbox")
    .column("next_attempt_at")
    .where(sql.ref("sent_at"), "is", null)
    .execute();
  await db.schema.createIndex("mail_outbox_sent_at").on("mail_outbox").column("sent_at").execute();
}

/** mail_events under `name`, its mail_id pointing at the table `mails` (migration 024's too). */
export async function createMailEvents(db: Kysely<unknown>, name: string, mails: string) {
  await db.schema
    .createTable(name)
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("recipient_id", "text", (c) =>
      c.notNull().references("users.id").onDelete("cascade"),
    )
    .addColumn("comment_id", "text", (c) =>
      c.notNull().references("comments.id").onDelete("cascade"),
    )
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("mail_id", "text", (c) => c.references(`${mails}.id`).onDelete("cascade"))
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
}

/** mail_events' indexes. */
export async function indexMailEvents(db: Kysely<unknown>) {
  await db.schema
    .createIndex("mail_events_recipient")
    .on("mail_events")
    .columns(["recipient_id", "mail_id"])
    .execute();
  await db.schema.createIndex("mail_events_mail").on("mail_events").column("mail_id").execute();
  await db.schema
    .createIndex("mail_events_comment")
    .on("mail_events")
    .column("comment_id")
    .execute();
}
