import type { Kysely } from "kysely";
import { engineOf } from "../../db/engine.js";
import type { Database } from "../../db/schema.js";
import type { CoreDeps } from "../deps.js";
import {
  enqueue,
  pendingRow,
  type ChannelRules,
  type OutboxItem,
  type TryOutcome,
} from "../outbox/outbox.js";
import { addMs, DAY_MS, HOUR_MS, iso } from "../shared/clock.js";
import { wantsConversationMail } from "../user-settings/user-settings-service.js";
import { conversationMail, type MailedComment } from "./digest-mail.js";
import { MAIL_WINDOW_MS } from "./queue.js";

/**
 * How long a claimed mail is its sender's: longer than any one send can take (the SMTP timeouts of
 * core/mail), so only a sender that died loses it, and another instance takes it back then.
 */
export const MAIL_LEASE_MS = 5 * 60_000;
/** Sent rows are kept this long (for the record), then deleted with their events. */
export const SENT_MAIL_KEPT_MS = 7 * DAY_MS;

/** After a failed send: 1, 2, 4... minutes, at most six hours; a mail is never given up. */
export const retryDelayMs = (attempts: number) =>
  Math.min(60_000 * 2 ** Math.max(0, Math.min(attempts - 1, 20)), 6 * HOUR_MS);

/** How the outbox tries conversation mail (decision 017): ten at a time, one after another. */
export const mailRules: ChannelRules = {
  leaseMs: MAIL_LEASE_MS,
  batch: 10,
  retryAt: (mail, now) => addMs(now, retryDelayMs(mail.attempts)),
  keptMs: SENT_MAIL_KEPT_MS,
};

/**
 * Turns every recipient whose mail is due into one outbox row holding all their waiting events,
 * and holds their next mail back for the window. The recipient rows are claimed by a conditional
 * update (locked rows skipped on PostgreSQL), so across instances each is gathered once.
 */
export async function gatherDueMail(deps: Pick<CoreDeps, "db" | "clock">, limit = 50) {
  const now = deps.clock();
  const due = await deps.db
    .selectFrom("mail_digests")
    .select("recipient_id")
    .where("due_at", "<=", iso(now))
    .limit(1)
    .executeTakeFirst();
  // Most checks find nothing due: they stay reads, with no write lock taken on SQLite.
  if (!due) return 0;
  return deps.db.transaction().execute(async (trx) => {
    let candidates = trx
      .selectFrom("mail_digests")
      .select("recipient_id")
      .where("due_at", "<=", iso(now))
      .orderBy("due_at")
      .limit(limit);
    if (engineOf(deps.db) === "postgres") candidates = candidates.forUpdate().skipLocked();
    const claimed = await trx
      .updateTable("mail_digests")
      .set({ due_at: null, quiet_until: iso(addMs(now, MAIL_WINDOW_MS)) })
      .where("recipient_id", "in", candidates)
      .where("due_at", "<=", iso(now))
      .returning("recipient_id")
      .execute();
    let gathered = 0;
    for (const { recipient_id } of claimed) {
      const row = pendingRow(now, {
        channel: "mail",
        topic: "conversation",
        recipient_id,
        payload: "",
      });
      const id = row.id;
      await enqueue(trx, [row]);
      const events = await trx
        .updateTable("mail_events")
        .set({ mail_id: id })
        .where("recipient_id", "=", recipient_id)
        .where("mail_id", "is", null)
        .executeTakeFirst();
      if (events.numUpdatedRows === 0n) {
        // Everything it would have told of was deleted meanwhile: no mail, and no quiet window.
        await trx.deleteFrom("outbox").where("id", "=", id).execute();
        await trx
          .updateTable("mail_digests")
          .set({ quiet_until: null })
          .where("recipient_id", "=", recipient_id)
          .execute();
      } else {
        gathered += 1;
      }
    }
    return gathered;
  });
}

/** A claimed mail: whom it goes to, and since when it waits. */
export type ClaimedMail = Pick<OutboxItem, "id" | "recipient_id" | "attempts" | "created_at">;

/**
 * Marks a mail skipped. Nothing went out, so the window its gathering opened is closed again: a
 * person mailed nothing while suspended, or only about a suspended writer, hears of the next
 * comment after the usual short delay.
 */
async function skipped(deps: Pick<CoreDeps, "db">, mail: ClaimedMail): Promise<TryOutcome> {
  if (mail.recipient_id !== null) {
    await deps.db
      .updateTable("mail_digests")
      .set({ quiet_until: null })
      .where("recipient_id", "=", mail.recipient_id)
      .execute();
  }
  return { status: "skipped" };
}

/**
 * What the mail tells of now: comments deleted since are gone with their events, and a post the
 * recipient may no longer see (moved back to drafts) is not named to them (as `canSeePost`).
 */
async function mailedComments(db: Kysely<Database>, mailId: string): Promise<MailedComment[]> {
  const rows = await db
    .selectFrom("mail_events")
    .innerJoin("comments", "comments.id", "mail_events.comment_id")
    .innerJoin("posts", "posts.id", "comments.post_id")
    .innerJoin("users", "users.id", "comments.user_id")
    .innerJoin("users as recipients", "recipients.id", "mail_events.recipient_id")
    .select([
      "mail_events.kind",
      "comments.id",
      "comments.text",
      "comments.created_at",
      "posts.id as post_id",
      "posts.title",
      "users.username",
    ])
    .where("mail_events.mail_id", "=", mailId)
    .where("users.suspended_at", "is", null)
    .where((eb) =>
      eb.or([
        eb("posts.status", "=", "published"),
        eb("posts.user_id", "=", eb.ref("mail_events.recipient_id")),
        eb("recipients.is_admin", "=", 1),
      ]),
    )
    .orderBy("comments.created_at")
    .orderBy("comments.id")
    .execute();
  return rows.map((row) => ({
    kind: row.kind,
    commentId: row.id,
    text: row.text,
    postId: row.post_id,
    postTitle: row.title,
    author: row.username,
  }));
}

/**
 * Sends one claimed mail, built now from what is still true: nothing to a suspended or unverified
 * recipient, or to one who turned the mail off; nothing about comments deleted since or written by
 * someone suspended (what is skipped is dropped, not kept for a restore). Delivered once the relay
 * (or the outbox file) took it; a failure is retried later, never dropped.
 */
export async function deliverMail(
  deps: Pick<CoreDeps, "db" | "clock" | "mailer" | "site" | "log">,
  mail: ClaimedMail,
): Promise<TryOutcome> {
  const recipient =
    mail.recipient_id === null
      ? undefined
      : await deps.db
          .selectFrom("users")
          .select(["id", "email", "username", "is_verified", "suspended_at"])
          .where("id", "=", mail.recipient_id)
          .executeTakeFirst();
  const comments = await mailedComments(deps.db, mail.id);
  if (
    !recipient ||
    recipient.suspended_at !== null ||
    recipient.is_verified !== 1 ||
    comments.length === 0 ||
    !(await wantsConversationMail(deps.db, recipient.id))
  ) {
    return skipped(deps, mail);
  }
  const message = await conversationMail(deps, recipient, comments, {
    id: mail.id,
    date: new Date(mail.created_at),
  });
  try {
    await deps.mailer.send(message);
  } catch (error) {
    return { status: "retry", error: String(error).slice(0, 200), cause: error };
  }
  return { status: "delivered" };
}
