import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.js";
import { queueConversationMail } from "../conversation-mail/queue.js";
import type { CoreDeps } from "../deps.js";
import { tellWebhooks } from "../integrations/webhook-events.js";
import { mailSubscribers } from "../newsletter/sending.js";
import type { DomainEvent, EventType } from "./events.js";

/**
 * What a subscriber does with an event: it reads what it needs now, outside any transaction, and
 * returns the write it wants (or nothing). Every write an event causes runs in one transaction
 * with the mark that the event is dispatched: all of them happen, once, or none does and the
 * event is dispatched again later.
 */
export type Subscriber<T extends EventType> = (
  deps: CoreDeps,
  event: DomainEvent<T>,
  at: Date,
) => Promise<((trx: Kysely<Database>) => Promise<void>) | undefined>;

const conversationMail: Subscriber<"comment.created"> = (deps, event, at) =>
  queueConversationMail(deps, event, at);

/**
 * Who listens to which event (decision 027): the one list. Federation joins it next.
 *
 * Not in it, because they are part of the write itself and run in its transaction: the in-site
 * notifications (core/notifications) and the audit log (core/audit). Not in it either, because
 * they must happen before the write's answer leaves: kept pages dropped (`changingContent`) and
 * the scheduled publisher woken (`postScheduled`).
 */
export const subscribers: { readonly [T in EventType]: readonly Subscriber<T>[] } = {
  "post.published": [tellWebhooks, mailSubscribers],
  "post.updated": [tellWebhooks],
  "post.deleted": [tellWebhooks],
  "comment.created": [conversationMail, tellWebhooks],
  "user.created": [tellWebhooks],
};
