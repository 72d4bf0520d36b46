import { PostgresAdapter, type Kysely } from "kysely";
import type { Database } from "../../db/schema.js";
import type { CoreDeps } from "../deps.js";
import { addMs, DAY_MS, HOUR_MS, iso } from "../shared/clock.js";
import { newId } from "../shared/ids.js";
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

const isPostgres = (db: Kysely<Database>) => db.getExecutor().adapter instanceof PostgresAdapter;

/** After a failed send: 1, 2, 4... minutes, at most six hours; a mail is never given up. */
export const retryDelayMs = (attempts: number) =>
  Math.min(60_000 * 2 ** Math.max(0, Math.min(attempts - 1, 20)), 6 * HOUR_MS);

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
    if (isPostgres(deps.db)) candidates = candidates.forUpdate().skipLocked();
    const claimed = await trx
      .updateTable("mail_digests")
      .set({ due_at: null, quiet_until: iso(addMs(now, MAIL_WINDOW_MS)) })
      .where("recipient_id", "in", candidates)
      .where("due_at", "<=", iso(now))
      .returning("recipient_id")
      .execute();
    let gathered = 0;
    for (const { recipient_id } of claimed) {
      const id = newId();
      await trx
        .insertInto("mail_outbox")
        .values({
          id,
          recipient_id,
          attempts: 0,
          next_attempt_at: iso(now),
          sent_at: null,
          outcome: null,
          created_at: iso(now),
        })
        .execute();
      const events = await trx
        .updateTable("mail_events")
        .set({ mail_id: id })
        .where("recipient_id", "=", recipient_id)
        .where("mail_id", "is", null)
        .executeTakeFirst();
      if (events.numUpdatedRows === 0n) {
        // Everything it would have told of was deleted meanwhile: no mail, and no quiet window.
        await trx.deleteFrom("mail_outbox").where("id", "=", id).execute();
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

export interface ClaimedMail {
  id: string;
  recipient_id: string;
  attempts: number;
  created_at: string;
}

/**
 * Claims mails that are due (new, or a retry whose time came, or one whose sender's lease ran out)
 * by moving their next attempt past the lease: one statement, so across instances each attempt
 * is made by one (locked rows skipped on PostgreSQL; SQLite writes one at a time).
 */
export async function claimDueMail(
  deps: Pick<CoreDeps, "db" | "clock">,
  options: { leaseMs?: number; limit?: number } = {},
): Promise<ClaimedMail[]> {
  const now = iso(deps.clock());
  const leaseEnd = iso(addMs(deps.clock(), options.leaseMs ?? MAIL_LEASE_MS));
  const due = await deps.db
    .selectFrom("mail_outbox")
    .select("id")
    .where("sent_at", "is", null)
    .where("next_attempt_at", "<=", now)
    .limit(1)
    .executeTakeFirst();
  if (!due) return [];
  let candidates = deps.db
    .selectFrom("mail_outbox")
    .select("id")
    .where("sent_at", "is", null)
    .where("next_attempt_at", "<=", now)
    .orderBy("next_attempt_at")
    .limit(options.limit ?? 10);
  if (isPostgres(deps.db)) candidates = candidates.forUpdate().skipLocked();
  return deps.db
    .updateTable("mail_outbox")
    .set((eb) => ({ next_attempt_at: leaseEnd, attempts: eb("attempts", "+", 1) }))
    .where("id", "in", candidates)
    .where("sent_at", "is", null)
    .where("next_attempt_at", "<=", now)
    .returning(["id", "recipient_id", "attempts", "created_at"])
    .execute();
}

async function markDone(
  deps: Pick<CoreDeps, "db" | "clock">,
  id: string,
  outcome: "sent" | "skipped",
) {
  await deps.db
    .updateTable("mail_outbox")
    .set({ sent_at: iso(deps.clock()), outcome })
    .where("id", "=", id)
    .where("sent_at", "is", null)
    .execute();
}

/**
 * Marks a mail skipped. Nothing went out, so the window its gathering opened is closed again: a
 * person mailed nothing while suspended, or only about a suspended writer, hears of the next
 * comment after the usual short delay.
 */
async function markSkipped(deps: Pick<CoreDeps, "db" | "clock">, mail: ClaimedMail) {
  await markDone(deps, mail.id, "skipped");
  await deps.db
    .updateTable("mail_digests")
    .set({ quiet_until: null })
    .where("recipient_id", "=", mail.recipient_id)
    .execute();
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
 * someone suspended (what is skipped is dropped, not kept for a restore). Marked done right after
 * the relay (or the outbox file) took it; a failure is retried later, never dropped.
 */
export async function deliverMail(
  deps: Pick<CoreDeps, "db" | "clock" | "mailer" | "site" | "log">,
  mail: ClaimedMail,
): Promise<"sent" | "skipped" | "failed"> {
  const recipient = await deps.db
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
    await markSkipped(deps, mail);
    return "skipped";
  }
  const message = await conversationMail(deps, recipient, comments, {
    id: mail.id,
    date: new Date(mail.created_at),
  });
  try {
    await deps.mailer.send(message);
  } catch (error) {
    const retryAt = iso(addMs(deps.clock(), retryDelayMs(mail.attempts)));
    await deps.db
      .updateTable("mail_outbox")
      .set({ next_attempt_at: retryAt })
      .where("id", "=", mail.id)
      .where("sent_at", "is", null)
      .execute();
    deps.log.warn(
      { err: error, mailId: mail.id, attempts: mail.attempts, retryAt },
      "could not send a conversation mail; it will be retried",
    );
    return "failed";
  }
  await markDone(deps, mail.id, "sent");
  return "sent";
}

/** Deletes mails sent long ago, with their events. */
export async function pruneSentMail(deps: Pick<CoreDeps, "db" | "clock">) {
  const before = iso(addMs(deps.clock(), -SENT_MAIL_KEPT_MS));
  const result = await deps.db
    .deleteFrom("mail_outbox")
    .where("sent_at", "<", before)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Hands claimed mails back at once (a server stopping before it sent them). */
export async function releaseMail(deps: Pick<CoreDeps, "db" | "clock">, ids: string[]) {
  if (ids.length === 0) return;
  await deps.db
    .updateTable("mail_outbox")
    .set({ next_attempt_at: iso(deps.clock()) })
    .where("id", "in", ids)
    .where("sent_at", "is", null)
    .execute();
}
