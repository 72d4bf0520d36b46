import { createHmac, randomBytes } from "node:crypto";
import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import { PostgresAdapter, type Kysely } from "kysely";
import {
  integrationMessages as m,
  TEST_EVENT,
  WEBHOOK_SECRET_PREFIX,
  WebhookCreateSchema,
  WEBHOOKS_MAX,
  type WebhookEvent,
} from "../../contract/integrations.js";
import type { Database, WebhookDeliveriesTable, WebhooksTable } from "../../db/schema.js";
import type { CoreDeps, WebhookSettings } from "../deps.js";
import { pageOf } from "../posts/queries.js";
import { addMs, DAY_MS, HOUR_MS, iso } from "../shared/clock.js";
import { conflict, invalid, notFound } from "../shared/errors.js";
import { isId, newId } from "../shared/ids.js";
import { validate } from "../shared/validate.js";
import { assertAdmin, type Actor } from "../users/policies.js";
import { recordAudit } from "../audit/audit-log.js";
import {
  hostOf,
  isPrivateAddress,
  publicOnlyLookup,
  RefusedAddress,
  resolveAll,
} from "./addresses.js";

/** A delivery is retried for this long after its event, then marked failed. */
export const DELIVERY_WINDOW_MS = DAY_MS;
/** Waits before the 2nd, 3rd... tries: the first retry within a minute, then longer. */
export const RETRY_DELAYS_MS = [
  30_000,
  2 * 60_000,
  10 * 60_000,
  HOUR_MS,
  3 * HOUR_MS,
  6 * HOUR_MS,
  12 * HOUR_MS,
] as const;
/** How long a claimed delivery is its sender's: longer than any one try (10 s) can take. */
export const DELIVERY_LEASE_MS = 60_000;
/** Delivered and failed rows are kept this long for the settings page, then deleted. */
export const DELIVERIES_KEPT_MS = 30 * DAY_MS;
export const DELIVERIES_PAGE = 20;
/** At most this much of a receiver's answer is read (and thrown away). */
const ANSWER_READ_MAX = 64 * 1024;

const isPostgres = (db: Kysely<Database>) => db.getExecutor().adapter instanceof PostgresAdapter;

const present = (row: Pick<WebhooksTable, "id" | "url" | "events" | "created_at">) => ({
  _id: row.id,
  url: row.url,
  events: JSON.parse(row.events) as string[],
  createdAt: row.created_at,
});

const presentDelivery = (
  row: Pick<
    WebhookDeliveriesTable,
    "id" | "event" | "status" | "attempts" | "last_attempt_at" | "response_status"
  >,
) => ({
  _id: row.id,
  event: row.event,
  status: row.status,
  attempts: row.attempts,
  lastAttemptAt: row.last_attempt_at,
  responseStatus: row.response_status,
});

/**
 * Whether a URL may receive webhooks: every address its host resolves to now is public (unless
 * private ones are allowed). Checked again at every delivery, on the address connected to.
 */
async function assertPublicUrl(settings: Pick<WebhookSettings, "allowPrivate">, url: URL) {
  if (settings.allowPrivate) return;
  let addresses: string[];
  try {
    addresses = await resolveAll(hostOf(url));
  } catch {
    throw invalid(m.webhookUrlUnresolved, { url: m.webhookUrlUnresolved });
  }
  if (addresses.length === 0 || addresses.some(isPrivateAddress)) {
    throw invalid(m.webhookUrlPrivate, { url: m.webhookUrlPrivate });
  }
}

/** 24 random bytes, base64, after `whsec_`: the secret form the Standard Webhooks libraries read. */
const newSecret = () => `${WEBHOOK_SECRET_PREFIX}${randomBytes(24).toString("base64")}`;

const settingsOf = (deps: Pick<CoreDeps, "webhooks">) =>
  deps.webhooks ?? { allowPrivate: false, timeoutMs: 10_000, queued: () => undefined };

/** `POST /api/webhooks` (admin): the secret is in this answer alone. */
export async function createWebhook(
  deps: Pick<CoreDeps, "db" | "clock" | "webhooks">,
  actor: Actor,
  body: unknown,
) {
  assertAdmin(actor);
  const input = validate(WebhookCreateSchema, body);
  const url = new URL(input.url);
  await assertPublicUrl(settingsOf(deps), url);
  const { count } = await deps.db
    .selectFrom("webhooks")
    .select((eb) => eb.fn.countAll<number | string>().as("count"))
    .executeTakeFirstOrThrow();
  if (Number(count) >= WEBHOOKS_MAX) throw conflict(m.tooManyWebhooks);
  const row = {
    id: newId(),
    url: url.href,
    events: JSON.stringify([...new Set(input.events)]),
    secret: newSecret(),
    created_by: actor.id,
    created_at: iso(deps.clock()),
  };
  // A standing channel out of the site: who opened it is logged (DESIGN.md 9, the audit log).
  await deps.db.transaction().execute(async (trx) => {
    await trx.insertInto("webhooks").values(row).execute();
    await recordAudit(trx, deps, actor, "webhook.create", {
      kind: "webhook",
      id: row.id,
      summary: row.url,
    });
  });
  return { ...present(row), secret: row.secret };
}

export async function listWebhooks(deps: Pick<CoreDeps, "db">, actor: Actor) {
  assertAdmin(actor);
  const rows = await deps.db
    .selectFrom("webhooks")
    .select(["id", "url", "events", "created_at"])
    .orderBy("created_at")
    .orderBy("id")
    .execute();
  return rows.map(present);
}

async function requireWebhook(db: Kysely<Database>, id: string) {
  const row = isId(id)
    ? await db.selectFrom("webhooks").selectAll().where("id", "=", id).executeTakeFirst()
    : undefined;
  if (!row) throw notFound(m.webhookNotFound);
  return row;
}

/** Removes an endpoint with its deliveries: any still waiting are not sent. */
export async function deleteWebhook(
  deps: Pick<CoreDeps, "db" | "clock">,
  actor: Actor,
  id: string,
) {
  assertAdmin(actor);
  await deps.db.transaction().execute(async (trx) => {
    const removed = await trx
      .deleteFrom("webhooks")
      .where("id", "=", isId(id) ? id : "")
      .returning(["id", "url"])
      .executeTakeFirst();
    if (!removed) throw notFound(m.webhookNotFound);
    await recordAudit(trx, deps, actor, "webhook.delete", {
      kind: "webhook",
      id: removed.id,
      summary: removed.url,
    });
  });
}

/** An endpoint's deliveries, newest first, 20 a page. */
export async function listDeliveries(
  deps: Pick<CoreDeps, "db">,
  actor: Actor,
  id: string,
  pageNumber = 1,
) {
  assertAdmin(actor);
  await requireWebhook(deps.db, id);
  const { limit, offset } = pageOf(pageNumber, DELIVERIES_PAGE);
  const rows = await deps.db
    .selectFrom("webhook_deliveries")
    .select(["id", "event", "status", "attempts", "last_attempt_at", "response_status"])
    .where("webhook_id", "=", id)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(limit)
    .offset(offset)
    .execute();
  return rows.map(presentDelivery);
}

/** One delivery row per endpoint, its body fixed now: every try sends these bytes. */
async function queueDeliveries(
  deps: Pick<CoreDeps, "db" | "clock" | "webhooks">,
  webhookIds: readonly string[],
  type: string,
  data: unknown,
) {
  if (webhookIds.length === 0) return [];
  const now = iso(deps.clock());
  const payload = JSON.stringify({ type, timestamp: now, data });
  const rows = webhookIds.map((webhookId) => ({
    id: newId(),
    webhook_id: webhookId,
    event: type,
    payload,
    status: "pending" as const,
    attempts: 0,
    next_attempt_at: now,
    last_attempt_at: null,
    response_status: null,
    last_error: null,
    created_at: now,
  }));
  await deps.db.insertInto("webhook_deliveries").values(rows).execute();
  settingsOf(deps).queued();
  return rows;
}

/** "Send a test event": a `webhook.test` delivery to one endpoint, like any other. */
export async function sendTestEvent(
  deps: Pick<CoreDeps, "db" | "clock" | "webhooks" | "site">,
  actor: Actor,
  id: string,
) {
  assertAdmin(actor);
  const webhook = await requireWebhook(deps.db, id);
  const [row] = await queueDeliveries(deps, [webhook.id], TEST_EVENT, {
    message: `A test event from ${deps.site.publicUrl}`,
  });
  if (!row) throw notFound(m.webhookNotFound);
  return presentDelivery(row);
}

/**
 * Tells every endpoint that wants `event`: called right after the write it tells of. `data` is
 * made only when some endpoint wants it, so a site without webhooks pays one small read. Never
 * throws: the write it tells of has happened, and its caller's answer must not say otherwise.
 */
export async function announce(
  deps: Pick<CoreDeps, "db" | "clock" | "webhooks" | "log">,
  event: WebhookEvent,
  data: () => Promise<unknown>,
) {
  if (!deps.webhooks) return;
  try {
    const endpoints = await deps.db.selectFrom("webhooks").select(["id", "events"]).execute();
    const wanting = endpoints
      .filter((row) => (JSON.parse(row.events) as string[]).includes(event))
      .map((row) => row.id);
    if (wanting.length === 0) return;
    await queueDeliveries(deps, wanting, event, await data());
  } catch (error) {
    deps.log.warn({ err: error, event }, "could not queue a webhook event");
  }
}

export interface ClaimedDelivery {
  id: string;
  attempts: number;
  payload: string;
  created_at: string;
  url: string;
  secret: string;
}

/**
 * Claims deliveries that are due (new, a retry whose time came, or one whose sender's lease ran
 * out) by moving their next attempt past the lease, in one statement, as the mail outbox does
 * (decision 017): across instances each try is made by one.
 */
export async function claimDueDeliveries(
  deps: Pick<CoreDeps, "db" | "clock">,
  options: { leaseMs?: number | undefined; limit?: number } = {},
): Promise<ClaimedDelivery[]> {
  const now = iso(deps.clock());
  const due = await deps.db
    .selectFrom("webhook_deliveries")
    .select("id")
    .where("status", "=", "pending")
    .where("next_attempt_at", "<=", now)
    .limit(1)
    .executeTakeFirst();
  // Most checks find nothing due: they stay reads, with no write lock taken on SQLite.
  if (!due) return [];
  let candidates = deps.db
    .selectFrom("webhook_deliveries")
    .select("id")
    .where("status", "=", "pending")
    .where("next_attempt_at", "<=", now)
    .orderBy("next_attempt_at")
    .limit(options.limit ?? 10);
  if (isPostgres(deps.db)) candidates = candidates.forUpdate().skipLocked();
  const claimed = await deps.db
    .updateTable("webhook_deliveries")
    .set((eb) => ({
      next_attempt_at: iso(addMs(deps.clock(), options.leaseMs ?? DELIVERY_LEASE_MS)),
      attempts: eb("attempts", "+", 1),
    }))
    .where("id", "in", candidates)
    .where("status", "=", "pending")
    .where("next_attempt_at", "<=", now)
    .returning(["id", "webhook_id", "attempts", "payload", "created_at"])
    .execute();
  if (claimed.length === 0) return [];
  const endpoints = await deps.db
    .selectFrom("webhooks")
    .select(["id", "url", "secret"])
    .where(
      "id",
      "in",
      claimed.map((row) => row.webhook_id),
    )
    .execute();
  const byId = new Map(endpoints.map((row) => [row.id, row]));
  return claimed.flatMap((row) => {
    const endpoint = byId.get(row.webhook_id);
    // Removed meanwhile: its deliveries went with it.
    return endpoint ? [{ ...row, url: endpoint.url, secret: endpoint.secret }] : [];
  });
}

/** The Standard Webhooks signature of one try: `v1,` and the base64 HMAC-SHA256 of id.timestamp.body. */
export function signature(secret: string, id: string, timestamp: number, body: string) {
  const key = Buffer.from(secret.slice(WEBHOOK_SECRET_PREFIX.length), "base64");
  const mac = createHmac("sha256", key).update(`${id}.${String(timestamp)}.${body}`);
  return `v1,${mac.digest("base64")}`;
}

interface TryOutcome {
  /** The receiver's status code, if it answered. */
  status?: number;
  /** Why the try failed without an answer (refused address, timeout, connection error). */
  error?: string;
}

/**
 * One POST of a delivery's body, signed for this try, answered within `timeoutMs` or given up.
 * The address is checked on the connection itself (publicOnlyLookup), redirects are not followed.
 */
export function postOnce(
  settings: Pick<WebhookSettings, "allowPrivate" | "timeoutMs">,
  delivery: Pick<ClaimedDelivery, "id" | "url" | "secret" | "payload">,
  now: Date,
): Promise<TryOutcome> {
  return new Promise((resolve) => {
    let url: URL;
    try {
      url = new URL(delivery.url);
    } catch {
      resolve({ error: "the URL is not valid" });
      return;
    }
    // A literal address is connected to without a lookup: checked here instead.
    const literal = hostOf(url);
    if (!settings.allowPrivate && isIP(literal) !== 0 && isPrivateAddress(literal)) {
      resolve({ error: "the address is on a private network" });
      return;
    }
    const timestamp = Math.floor(now.getTime() / 1000);
    const body = Buffer.from(delivery.payload);
    if (url.protocol !== "https:" && url.protocol !== "http:") {
      // A row from elsewhere (an import) with another scheme: a failed try, not a thrown one.
      resolve({ error: "the URL is not http(s)" });
      return;
    }
    const client = url.protocol === "https:" ? https : http;
    const request = client.request(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "content-length": String(body.length),
        "user-agent": "blog-webhooks/1",
        "webhook-id": delivery.id,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": signature(delivery.secret, delivery.id, timestamp, delivery.payload),
      },
      ...(settings.allowPrivate ? {} : { lookup: publicOnlyLookup }),
      agent: false,
    });
    const timer = setTimeout(() => {
      request.destroy(new Error(`no answer within ${String(settings.timeoutMs / 1000)} s`));
    }, settings.timeoutMs);
    const finish = (outcome: TryOutcome) => {
      clearTimeout(timer);
      resolve(outcome);
    };
    request.on("error", (error) => {
      finish({
        error:
          error instanceof RefusedAddress
            ? "the address is on a private network"
            : error.message.slice(0, 200),
      });
    });
    request.on("response", (response) => {
      let read = 0;
      response.on("data", (chunk: Buffer) => {
        read += chunk.length;
        if (read > ANSWER_READ_MAX) response.destroy();
      });
      const done = () => {
        finish({ status: response.statusCode ?? 0 });
      };
      response.on("end", done);
      response.on("close", done);
      response.on("error", done);
    });
    request.end(body);
  });
}

/** When the try after `attempts` tries is due, or undefined: the day is over, give up. */
export function nextTryAt(createdAt: string, attempts: number, now: Date): Date | undefined {
  const delay = RETRY_DELAYS_MS[attempts - 1];
  if (delay === undefined) return undefined;
  const at = addMs(now, delay);
  return at.getTime() - Date.parse(createdAt) > DELIVERY_WINDOW_MS ? undefined : at;
}

/**
 * Makes one try of a claimed delivery and records it: delivered on a 2xx answer; else retried
 * later with the same id, or failed once the day is over. Written only while the claim is this
 * sender's (its attempt count unchanged), so a sender that outlived its lease writes nothing.
 */
export async function deliver(
  deps: Pick<CoreDeps, "db" | "clock" | "webhooks" | "log">,
  delivery: ClaimedDelivery,
) {
  // Claimed past its day (the site was down): given up without a try, as the schedule says.
  const late = deps.clock().getTime() - Date.parse(delivery.created_at) > DELIVERY_WINDOW_MS;
  const outcome = late
    ? { error: "not tried: over a day since the event" }
    : await postOnce(settingsOf(deps), delivery, deps.clock());
  const now = deps.clock();
  const ok = outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300;
  const retryAt = ok ? undefined : nextTryAt(delivery.created_at, delivery.attempts, now);
  await deps.db
    .updateTable("webhook_deliveries")
    .set({
      status: ok ? "delivered" : retryAt ? "pending" : "failed",
      next_attempt_at: retryAt ? iso(retryAt) : null,
      last_attempt_at: iso(now),
      response_status: outcome.status ?? null,
      last_error: outcome.error ?? null,
    })
    .where("id", "=", delivery.id)
    .where("attempts", "=", delivery.attempts)
    .where("status", "=", "pending")
    .execute();
  return ok ? "delivered" : retryAt ? "retry" : "failed";
}

/**
 * Hands claimed deliveries back at once (a server stopping before it sent them), each only while
 * its claim is still this sender's: one another instance took over since is left alone.
 */
export async function releaseDeliveries(
  deps: Pick<CoreDeps, "db" | "clock">,
  claimed: readonly Pick<ClaimedDelivery, "id" | "attempts">[],
) {
  for (const delivery of claimed) {
    await deps.db
      .updateTable("webhook_deliveries")
      .set({ next_attempt_at: iso(deps.clock()), attempts: delivery.attempts - 1 })
      .where("id", "=", delivery.id)
      .where("attempts", "=", delivery.attempts)
      .where("status", "=", "pending")
      .execute();
  }
}

/** Deletes deliveries finished long ago. */
export async function pruneDeliveries(deps: Pick<CoreDeps, "db" | "clock">) {
  const result = await deps.db
    .deleteFrom("webhook_deliveries")
    .where("status", "!=", "pending")
    .where("created_at", "<", iso(addMs(deps.clock(), -DELIVERIES_KEPT_MS)))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
