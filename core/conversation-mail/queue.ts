import { sql, type Kysely } from "kysely";
import type { Database, MailEventKind } from "../../db/schema.js";
import type { CoreDeps } from "../deps.js";
import { addMs, iso } from "../shared/clock.js";
import { isId, newId } from "../shared/ids.js";

/** The first mail after a quiet spell waits this long, so a burst of comments goes as one. */
export const FIRST_MAIL_DELAY_MS = 60_000;
/** At most one conversation mail per person in this long (DESIGN.md 9). */
export const MAIL_WINDOW_MS = 10 * 60_000;

type Deps = Pick<CoreDeps, "db">;

/**
 * Who hears of a new comment: the post's author ("comment"), and as "reply" the author of the
 * thread it joins and of the comment it answered; never its own writer, nor someone who turned
 * the mail off or is suspended. Each is queued as an event waiting for that person's next mail.
 */
async function recipientsOf(deps: Deps, commentId: string, repliedTo: string | null | undefined) {
  const comment = await deps.db
    .selectFrom("comments")
    .innerJoin("posts", "posts.id", "comments.post_id")
    .select(["comments.user_id", "comments.parent_id", "posts.user_id as post_author"])
    .where("comments.id", "=", commentId)
    .executeTakeFirst();
  if (!comment) return new Map<string, MailEventKind>();
  const kinds = new Map<string, MailEventKind>([[comment.post_author, "comment"]]);
  const answered = [comment.parent_id, repliedTo].filter(
    (id): id is string => typeof id === "string" && isId(id),
  );
  if (answered.length > 0) {
    const authors = await deps.db
      .selectFrom("comments")
      .select("user_id")
      .where("id", "in", answered)
      .execute();
    for (const { user_id } of authors) kinds.set(user_id, "reply");
  }
  kinds.delete(comment.user_id);
  if (kinds.size === 0) return kinds;
  const muted = await deps.db
    .selectFrom("users")
    .leftJoin("user_settings", "user_settings.user_id", "users.id")
    .select("users.id")
    .where("users.id", "in", [...kinds.keys()])
    .where((eb) =>
      eb.or([
        eb("users.suspended_at", "is not", null),
        eb("user_settings.email_notifications", "=", 0),
      ]),
    )
    .execute();
  for (const { id } of muted) kinds.delete(id);
  return kinds;
}

/**
 * The mail a new comment causes (decision 017), as a subscriber of `comment.created`: who hears of
 * it is read now, and the returned write queues each recipient's event in the dispatch's
 * transaction. Recipients in the order of their ids: two dispatches lock their rows in one order.
 */
export async function queueConversationMail(
  deps: Pick<CoreDeps, "db">,
  comment: { commentId: string; repliedTo: string | null },
  /** When the comment was written: its mail's delay counts from then, not from the dispatch. */
  now: Date,
) {
  const recipients = [...(await recipientsOf(deps, comment.commentId, comment.repliedTo))].sort(
    ([a], [b]) => a.localeCompare(b),
  );
  if (recipients.length === 0) return undefined;
  return async (trx: Kysely<Database>) => {
    const soon = iso(addMs(now, FIRST_MAIL_DELAY_MS));
    for (const [recipientId, kind] of recipients) {
      // The recipient's row first: on PostgreSQL the upsert locks it, so a gatherer claiming it
      // waits for this event (or finished before, and the event waits for the next mail).
      await trx
        .insertInto("mail_digests")
        .values({ recipient_id: recipientId, due_at: soon, quiet_until: null })
        .onConflict((oc) =>
          oc.column("recipient_id").doUpdateSet({
            due_at: sql<string>`case
              when mail_digests.due_at is not null then mail_digests.due_at
              when mail_digests.quiet_until > ${soon} then mail_digests.quiet_until
              else ${soon} end`,
          }),
        )
        .execute();
      await trx
        .insertInto("mail_events")
        .values({
          id: newId(),
          recipient_id: recipientId,
          comment_id: comment.commentId,
          kind,
          mail_id: null,
          created_at: iso(now),
        })
        .execute();
    }
  };
}
