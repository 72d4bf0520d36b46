import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.js";
import type { CoreDeps } from "../deps.js";
import { settle, type ChannelRules, type OutboxItem } from "../outbox/outbox.js";
import { addMs, DAY_MS, HOUR_MS } from "../shared/clock.js";
import type { DomainEvent, EventType } from "./events.js";
import { subscribers, type Subscriber } from "./subscribers.js";

/** Thrown inside a dispatch whose claim another instance took over: its writes are undone. */
class ClaimLost extends Error {}

/**
 * How the outbox dispatches events: twenty at a time, in the order they happened; one whose
 * dispatch fails (the database away) is tried again after 1, 2, 4... minutes, for a week.
 */
export const eventRules: ChannelRules = {
  leaseMs: 60_000,
  batch: 20,
  retryAt: (event, now) =>
    now.getTime() - Date.parse(event.created_at) > 7 * DAY_MS
      ? undefined
      : addMs(now, Math.min(60_000 * 2 ** Math.min(event.attempts - 1, 20), 6 * HOUR_MS)),
  keptMs: DAY_MS,
};

const listenersOf = (type: EventType) => subscribers[type] as readonly Subscriber<EventType>[];

/**
 * Dispatches one claimed event: every subscriber reads what it needs, then one transaction makes
 * all their writes (deliveries queued, mail events) and marks the event dispatched: settled here,
 * in that transaction. A failure throws, and the outbox's worker records the retry.
 */
export async function dispatchEvent(deps: CoreDeps, item: OutboxItem): Promise<"settled"> {
  const event = JSON.parse(item.payload) as DomainEvent;
  const at = new Date(item.created_at);
  const writes: ((trx: Kysely<Database>) => Promise<void>)[] = [];
  for (const subscriber of listenersOf(event.type)) {
    const write = await subscriber(deps, event, at);
    if (write) writes.push(write);
  }
  try {
    await deps.db.transaction().execute(async (trx: Kysely<Database>) => {
      for (const write of writes) await write(trx);
      const settled = await settle(trx, deps.clock, eventRules, item, { status: "delivered" });
      if (!settled.written) throw new ClaimLost();
    });
  } catch (error) {
    // Another instance dispatches it now: nothing here was written.
    if (error instanceof ClaimLost) return "settled";
    throw error;
  }
  return "settled";
}
