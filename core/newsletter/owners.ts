import { sql, type Kysely } from "kysely";
import type { z } from "zod";
import {
  SUBSCRIBERS_PAGE_SIZE,
  SubscribersFilterSchema,
  SubscribersQuerySchema,
  subscriberMessages as messages,
  type SubscriberListResponse,
  type SubscriptionView,
} from "../../contract/newsletter.js";
import type { Database } from "../../db/schema.js";
import type { CoreDeps } from "../deps.js";
import { csvLine } from "../shared/csv.js";
import { notFound } from "../shared/errors.js";
import { isId } from "../shared/ids.js";
import { likeContaining } from "../shared/like-pattern.js";
import { rowWindow } from "../shared/row-window.js";
import { validate } from "../shared/validate.js";
import type { Actor } from "../users/policies.js";

// The owners' side of subscriptions (DESIGN.md 11, "Newsletters"; decision 028): an admin reaches
// every subscription, a member those to them as a writer. Anyone else's are answered as unknown
// (404), so an id tells nothing.

/** Rows an export reads at a time: its memory is one batch's, however long the list. */
const EXPORT_BATCH = 1000;

/** The subscriptions an owner may see and remove: an admin all, a member those to them. */
export const scopeOfOwner = (actor: Actor) => (actor.isAdmin ? undefined : actor.id);

type Filter = z.output<typeof SubscribersFilterSchema>;

/** The owner's subscriptions that match the filter (addresses are stored lowercased). */
function reachable(db: Kysely<Database>, actor: Actor, filter: Filter) {
  let query = db.selectFrom("subscriptions");
  const scope = scopeOfOwner(actor);
  if (scope !== undefined) query = query.where("subscriptions.scope_key", "=", scope);
  if (filter.status) {
    query = query.where("subscriptions.status", "=", filter.status);
  }
  if (filter.q) {
    query = query.where(likeContaining(sql.ref("subscriptions.email"), filter.q.toLowerCase()));
  }
  return query;
}

type SubscriptionRow = Pick<
  Database["subscriptions"],
  "id" | "email" | "scope_key" | "author_id" | "status" | "created_at"
>;

export function presentSubscription(row: SubscriptionRow): SubscriptionView {
  return {
    _id: row.id,
    email: row.email,
    scope: row.scope_key === "site" ? "site" : "author",
    ...(row.author_id === null ? {} : { authorId: row.author_id }),
    status: row.status,
    createdAt: row.created_at,
  };
}

const COLUMNS = [
  "subscriptions.id",
  "subscriptions.email",
  "subscriptions.scope_key",
  "subscriptions.author_id",
  "subscriptions.status",
  "subscriptions.created_at",
] as const;

/** `GET /api/newsletter/subscribers`: a page of the owner's subscriptions, newest first. */
export async function listSubscribers(
  deps: Pick<CoreDeps, "db">,
  actor: Actor,
  query: unknown,
): Promise<SubscriberListResponse> {
  const { pageNumber, ...filter } = validate(SubscribersQuerySchema, query);
  const { limit, offset } = rowWindow(pageNumber, SUBSCRIBERS_PAGE_SIZE);
  const [count, rows] = await Promise.all([
    reachable(deps.db, actor, filter)
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .executeTakeFirstOrThrow(),
    reachable(deps.db, actor, filter)
      .select(COLUMNS)
      .orderBy("subscriptions.created_at", "desc")
      .orderBy("subscriptions.id", "desc")
      .limit(limit)
      .offset(offset)
      .execute(),
  ]);
  return { total: Number(count.n), subscribers: rows.map(presentSubscription) };
}

/** `DELETE /api/newsletter/subscribers/:id`: the subscription is gone, its address with it. */
export async function deleteSubscriber(deps: Pick<CoreDeps, "db">, actor: Actor, id: string) {
  if (!isId(id)) throw notFound(messages.notFound);
  let removal = deps.db.deleteFrom("subscriptions").where("id", "=", id);
  const scope = scopeOfOwner(actor);
  if (scope !== undefined) removal = removal.where("scope_key", "=", scope);
  const result = await removal.executeTakeFirst();
  if (Number(result.numDeletedRows) === 0) throw notFound(messages.notFound);
}

const SUBSCRIBERS_CSV_HEADER = ["email", "scope", "author", "status", "created_at"];

/**
 * `GET /api/newsletter/subscribers.csv`: the owner's subscriptions (filtered as the list is),
 * newest first, as CSV text a batch at a time. The first batch is read before this returns, so a
 * list that cannot be read is an error answer rather than a cut-off file.
 */
export async function subscribersCsv(
  deps: Pick<CoreDeps, "db">,
  actor: Actor,
  query: unknown,
): Promise<AsyncGenerator<string>> {
  const { status, q } = validate(SubscribersFilterSchema, query);
  const batchAfter = (after?: { createdAt: string; id: string }) => {
    let batch = reachable(deps.db, actor, { status, q })
      .leftJoin("users", "users.id", "subscriptions.author_id")
      .select([...COLUMNS, "users.username"])
      .orderBy("subscriptions.created_at", "desc")
      .orderBy("subscriptions.id", "desc")
      .limit(EXPORT_BATCH);
    if (after) {
      batch = batch.where((eb) =>
        eb.or([
          eb("subscriptions.created_at", "<", after.createdAt),
          eb.and([
            eb("subscriptions.created_at", "=", after.createdAt),
            eb("subscriptions.id", "<", after.id),
          ]),
        ]),
      );
    }
    return batch.execute();
  };
  const first = await batchAfter();
  async function* lines() {
    let rows = first;
    let text = csvLine(SUBSCRIBERS_CSV_HEADER);
    for (;;) {
      for (const row of rows) {
        const scope = row.scope_key === "site" ? "site" : "author";
        text += csvLine([row.email, scope, row.username ?? "", row.status, row.created_at]);
      }
      yield text;
      const last = rows.at(-1);
      if (!last || rows.length < EXPORT_BATCH) return;
      rows = await batchAfter({ createdAt: last.created_at, id: last.id });
      text = "";
    }
  }
  return lines();
}

/**
 * The stats' subscriber numbers (one writer's, or the whole site's): how many subscriptions are
 * active now (an address counts once per scope: it has one subscription to each), and how many
 * became active on each day since `since` (their confirmation; an import with consent's too).
 */
export async function subscriberNumbers(
  db: Kysely<Database>,
  scope: { authorId: string } | "site-wide",
  since: string,
) {
  const confirmedDay = sql<string>`substr(${sql.ref("confirmed_at")}, 1, 10)`;
  // One statement: the active count comes as a row of its own ("active" is no day).
  let active = db
    .selectFrom("subscriptions")
    .select((eb) => [sql<string>`'active'`.as("day"), eb.fn.countAll<number | string>().as("n")])
    .where("status", "=", "active");
  let confirmed = db
    .selectFrom("subscriptions")
    .select((eb) => [confirmedDay.as("day"), eb.fn.countAll<number | string>().as("n")])
    .where("confirmed_at", ">=", since)
    .groupBy(confirmedDay);
  if (scope !== "site-wide") {
    active = active.where("scope_key", "=", scope.authorId);
    confirmed = confirmed.where("scope_key", "=", scope.authorId);
  }
  const rows = await active.unionAll(confirmed).execute();
  const byDay = new Map(rows.map((row) => [row.day, Number(row.n)]));
  const now = byDay.get("active") ?? 0;
  byDay.delete("active");
  return { active: now, byDay };
}
