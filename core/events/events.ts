import type { Kysely } from "kysely";
import type { WebhookEvent } from "../../contract/integrations.js";
import type { Database } from "../../db/schema.js";
import type { CoreDeps } from "../deps.js";
import { enqueue, pendingRow } from "../outbox/outbox.js";
import { addMs, iso } from "../shared/clock.js";

/**
 * What happened, as a write records it (decision 027): ids, not copies, so what is said of it is
 * read when it is dispatched; and what the write alone knew (whether the post was public then).
 */
export interface EventFields {
  "post.published": { postId: string };
  /** A published post changed (text, cover, settings). */
  "post.updated": { postId: string };
  /** A published post left the site: deleted, or taken back to drafts. */
  "post.deleted": { postId: string };
  "comment.created": {
    commentId: string;
    postId: string;
    /** The comment it answered, as the writer named it (the thread's or a reply's). */
    repliedTo: string | null;
    postPublished: boolean;
  };
  "user.created": { userId: string };
}

export type EventType = keyof EventFields;

export type DomainEvent<T extends EventType = EventType> = {
  [K in T]: { type: K } & EventFields[K];
}[T];

// Every event a webhook can pick is one the site records.
type Covered = WebhookEvent extends EventType ? true : never;
export const webhookEventsRecorded: Covered = true;

/**
 * Records an event in the caller's transaction, beside the write it tells of: both are kept, or
 * neither. Its dispatch (core/events/dispatch.ts) turns it into deliveries after the commit, on
 * whichever instance claims it first. With `heldMs`, it waits that long unless `releaseEvent`
 * lets it go sooner (or `dropEvent` takes it back): for a write that becomes final only after a
 * step outside the database (a sign-up, once its mail is sent).
 */
export async function recordEvent(
  trx: Kysely<Database>,
  deps: Pick<CoreDeps, "clock" | "queued">,
  event: DomainEvent,
  options: { heldMs?: number } = {},
) {
  const row = pendingRow(deps.clock(), {
    channel: "event",
    topic: event.type,
    payload: JSON.stringify(event),
  });
  if (options.heldMs) row.next_attempt_at = iso(addMs(deps.clock(), options.heldMs));
  await enqueue(trx, [row]);
  if (!options.heldMs) deps.queued?.();
  return row.id;
}

/** Lets a held event go now. */
export async function releaseEvent(deps: Pick<CoreDeps, "db" | "clock" | "queued">, id: string) {
  await deps.db
    .updateTable("outbox")
    .set({ next_attempt_at: iso(deps.clock()) })
    .where("id", "=", id)
    .where("attempts", "=", 0)
    .execute();
  deps.queued?.();
}

/** Takes back a held event whose write was undone. */
export async function dropEvent(deps: Pick<CoreDeps, "db">, id: string) {
  await deps.db.deleteFrom("outbox").where("id", "=", id).where("attempts", "=", 0).execute();
}
