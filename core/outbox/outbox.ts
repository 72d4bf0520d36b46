import type { Kysely } from "kysely";
import { engineOf } from "../../db/engine.js";
import type { Database, DeliveryStatus, OutboxChannel, OutboxTable } from "../../db/schema.js";
import { addMs, iso, type Clock } from "../shared/clock.js";
import { newId } from "../shared/ids.js";

// The one delivery engine (decision 027): every channel's rows are claimed with a lease, tried,
// retried with backoff, given up after their window, and pruned, by these functions alone.

type Deps = { db: Kysely<Database>; clock: Clock };

/** A claimed row: what its sender needs to try it. */
export type OutboxItem = Pick<
  OutboxTable,
  "id" | "channel" | "topic" | "recipient_id" | "webhook_id" | "payload" | "attempts" | "created_at"
>;

/** How one channel's rows are tried. */
export interface ChannelRules {
  /** How long a claimed row is its sender's: longer than any one try can take. */
  leaseMs: number;
  /** How many rows one claim takes. */
  batch: number;
  /** When the try after a failed one is due, or undefined: give up (the row is failed). */
  retryAt(item: Pick<OutboxItem, "attempts" | "created_at">, now: Date): Date | undefined;
  /** Finished rows are kept this long (for the record, the admin's lists), then deleted. */
  keptMs: number;
}

/** What one try came to. */
export type TryOutcome =
  | { status: "delivered" | "skipped"; responseStatus?: number | undefined }
  | {
      status: "retry";
      responseStatus?: number | undefined;
      /** Why, as the record keeps it. */
      error?: string | undefined;
      /** What was thrown, for the log. */
      cause?: unknown;
    };

/** A new row, due now. */
export function pendingRow(
  now: Date,
  fields: Pick<OutboxTable, "channel" | "topic" | "payload"> &
    Partial<Pick<OutboxTable, "id" | "recipient_id" | "webhook_id">>,
): OutboxTable {
  return {
    id: fields.id ?? newId(),
    channel: fields.channel,
    topic: fields.topic,
    recipient_id: fields.recipient_id ?? null,
    webhook_id: fields.webhook_id ?? null,
    payload: fields.payload,
    status: "pending",
    attempts: 0,
    next_attempt_at: iso(now),
    last_attempt_at: null,
    response_status: null,
    last_error: null,
    created_at: iso(now),
    finished_at: null,
  };
}

/** Queues rows in the caller's transaction (or alone). */
export async function enqueue(db: Kysely<Database>, rows: readonly OutboxTable[]) {
  if (rows.length === 0) return;
  await db.insertInto("outbox").values(rows).execute();
}

/**
 * Claims a channel's rows that are due (new, a retry whose time came, or one whose sender's lease
 * ran out) by moving their next attempt past the lease and counting the try, in one statement:
 * across instances each try is made by one (locked rows skipped on PostgreSQL; SQLite writes one
 * at a time).
 */
export async function claimDue(
  deps: Deps,
  channel: OutboxChannel,
  rules: Pick<ChannelRules, "leaseMs" | "batch">,
  options: { leaseMs?: number | undefined; limit?: number | undefined } = {},
): Promise<OutboxItem[]> {
  const now = iso(deps.clock());
  const due = () =>
    deps.db
      .selectFrom("outbox")
      .select("id")
      .where("channel", "=", channel)
      .where("status", "=", "pending")
      .where("next_attempt_at", "<=", now);
  // Most checks find nothing due: they stay reads, with no write lock taken on SQLite.
  if (!(await due().limit(1).executeTakeFirst())) return [];
  let candidates = due()
    .orderBy("next_attempt_at")
    .limit(options.limit ?? rules.batch);
  if (engineOf(deps.db) === "postgres") candidates = candidates.forUpdate().skipLocked();
  const leaseEnd = iso(addMs(deps.clock(), options.leaseMs ?? rules.leaseMs));
  const claimed = await deps.db
    .updateTable("outbox")
    .set((eb) => ({ next_attempt_at: leaseEnd, attempts: eb("attempts", "+", 1) }))
    .where("id", "in", candidates)
    .where("status", "=", "pending")
    .where("next_attempt_at", "<=", now)
    .returning([
      "id",
      "channel",
      "topic",
      "recipient_id",
      "webhook_id",
      "payload",
      "attempts",
      "created_at",
    ])
    .execute();
  // Claimed in one statement, returned in no set order: tried in the order they came.
  return claimed.sort(
    (a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id),
  );
}

/**
 * Records one try: delivered or skipped; else retried when the channel's rules say, or failed.
 * Written only while the claim is this sender's (its try count unchanged), so a sender that
 * outlived its lease writes nothing: false then. `db` may be the transaction the try wrote in.
 */
export async function settle(
  db: Kysely<Database>,
  clock: Clock,
  rules: Pick<ChannelRules, "retryAt">,
  item: Pick<OutboxItem, "id" | "attempts" | "created_at">,
  outcome: TryOutcome,
): Promise<{ written: boolean; status: DeliveryStatus; retryAt: Date | undefined }> {
  const now = clock();
  const retryAt = outcome.status === "retry" ? rules.retryAt(item, now) : undefined;
  const status: DeliveryStatus =
    outcome.status === "retry" ? (retryAt ? "pending" : "failed") : outcome.status;
  const result = await db
    .updateTable("outbox")
    .set({
      status,
      next_attempt_at: retryAt ? iso(retryAt) : null,
      last_attempt_at: iso(now),
      response_status: outcome.responseStatus ?? null,
      last_error: outcome.status === "retry" ? (outcome.error ?? null) : null,
      finished_at: status === "pending" ? null : iso(now),
    })
    .where("id", "=", item.id)
    .where("attempts", "=", item.attempts)
    .where("status", "=", "pending")
    .executeTakeFirst();
  return { written: result.numUpdatedRows === 1n, status, retryAt };
}

/**
 * Hands claimed rows back at once (a server stopping before it tried them), each only while its
 * claim is still this sender's: one another instance took over since is left alone.
 */
export async function release(deps: Deps, claimed: readonly Pick<OutboxItem, "id" | "attempts">[]) {
  for (const item of claimed) {
    await deps.db
      .updateTable("outbox")
      .set({ next_attempt_at: iso(deps.clock()), attempts: item.attempts - 1 })
      .where("id", "=", item.id)
      .where("attempts", "=", item.attempts)
      .where("status", "=", "pending")
      .execute();
  }
}

/** Deletes a channel's rows finished longer ago than its rules keep them. */
export async function prune(deps: Deps, channel: OutboxChannel, keptMs: number) {
  const result = await deps.db
    .deleteFrom("outbox")
    .where("channel", "=", channel)
    .where("finished_at", "<", iso(addMs(deps.clock(), -keptMs)))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
