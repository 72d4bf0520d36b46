import { createHmac, randomBytes } from "node:crypto";
import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import type { Kysely } from "kysely";
import {
  integrationMessages as m,
  TEST_EVENT,
  WEBHOOK_SECRET_PREFIX,
  WebhookCreateSchema,
  WEBHOOKS_MAX,
} from "../../contract/integrations.js";
import type { Database, OutboxTable, WebhooksTable } from "../../db/schema.js";
import type { CoreDeps, WebhookSettings } from "../deps.js";
import {
  enqueue,
  pendingRow,
  type ChannelRules,
  type OutboxItem,
  type TryOutcome,
} from "../outbox/outbox.js";
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

const present = (row: Pick<WebhooksTable, "id" | "url" | "events" | "created_at">) => ({
  _id: row.id,
  url: row.url,
  events: JSON.parse(row.events) as string[],
  createdAt: row.created_at,
});

/** How the outbox tries webhook deliveries (decision 025): ten at a time, side by side. */
export const webhookRules: ChannelRules = {
  leaseMs: DELIVERY_LEASE_MS,
  batch: 10,
  retryAt: (delivery, now) => nextTryAt(delivery.created_at, delivery.attempts, now),
  keptMs: DELIVERIES_KEPT_MS,
};

const presentDelivery = (
  row: Pick<
    OutboxTable,
    "id" | "topic" | "status" | "attempts" | "last_attempt_at" | "response_status"
  >,
) => ({
  _id: row.id,
  event: row.topic,
  // Skipped is for rows whose endpoint was removed meanwhile, gone with it: not delivered.
  status: row.status === "skipped" ? ("failed" as const) : row.status,
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
  deps.webhooks ?? { allowPrivate: false, timeoutMs: 10_000 };

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
    .selectFrom("outbox")
    .select(["id", "topic", "status", "attempts", "last_attempt_at", "response_status"])
    .where("channel", "=", "webhook")
    .where("webhook_id", "=", id)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(limit)
    .offset(offset)
    .execute();
  return rows.map(presentDelivery);
}

/** The endpoints that want `event`. */
export async function endpointsWanting(db: Kysely<Database>, event: string) {
  const endpoints = await db.selectFrom("webhooks").select(["id", "events"]).execute();
  return endpoints
    .filter((row) => (JSON.parse(row.events) as string[]).includes(event))
    .map((row) => row.id);
}

/** One delivery row per endpoint, its body fixed now: every try sends these bytes. */
export async function queueDeliveries(
  db: Kysely<Database>,
  webhookIds: readonly string[],
  event: { type: string; at: Date; data: unknown },
) {
  const payload = JSON.stringify({ type: event.type, timestamp: iso(event.at), data: event.data });
  const rows = webhookIds.map((webhookId) =>
    pendingRow(event.at, {
      channel: "webhook",
      topic: event.type,
      webhook_id: webhookId,
      payload,
    }),
  );
  await enqueue(db, rows);
  return rows;
}

/** "Send a test event": a `webhook.test` delivery to one endpoint, like any other. */
export async function sendTestEvent(
  deps: Pick<CoreDeps, "db" | "clock" | "queued" | "site">,
  actor: Actor,
  id: string,
) {
  assertAdmin(actor);
  const webhook = await requireWebhook(deps.db, id);
  const [row] = await queueDeliveries(deps.db, [webhook.id], {
    type: TEST_EVENT,
    at: deps.clock(),
    data: { message: `A test event from ${deps.site.publicUrl}` },
  });
  if (!row) throw notFound(m.webhookNotFound);
  deps.queued?.();
  return presentDelivery(row);
}

/** A claimed delivery with its endpoint's address and secret. */
export interface ClaimedDelivery extends Pick<
  OutboxItem,
  "id" | "attempts" | "payload" | "created_at"
> {
  url: string;
  secret: string;
}

/** The Standard Webhooks signature of one try: `v1,` and the base64 HMAC-SHA256 of id.timestamp.body. */
export function signature(secret: string, id: string, timestamp: number, body: string) {
  const key = Buffer.from(secret.slice(WEBHOOK_SECRET_PREFIX.length), "base64");
  const mac = createHmac("sha256", key).update(`${id}.${String(timestamp)}.${body}`);
  return `v1,${mac.digest("base64")}`;
}

interface PostOutcome {
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
): Promise<PostOutcome> {
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
    const finish = (outcome: PostOutcome) => {
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
 * Makes one try of a claimed delivery: delivered on a 2xx answer; else retried later with the same
 * id, or failed once the day is over (the outbox's `settle`, with `webhookRules`). An endpoint
 * removed meanwhile took its deliveries with it: skipped.
 */
export async function deliverWebhook(
  deps: Pick<CoreDeps, "db" | "clock" | "webhooks">,
  delivery: Pick<OutboxItem, "id" | "webhook_id" | "attempts" | "payload" | "created_at">,
): Promise<TryOutcome> {
  const endpoint =
    delivery.webhook_id === null
      ? undefined
      : await deps.db
          .selectFrom("webhooks")
          .select(["url", "secret"])
          .where("id", "=", delivery.webhook_id)
          .executeTakeFirst();
  if (!endpoint) return { status: "skipped" };
  // Claimed past its day (the site was down): given up without a try, as the schedule says.
  if (deps.clock().getTime() - Date.parse(delivery.created_at) > DELIVERY_WINDOW_MS) {
    return { status: "retry", error: "not tried: over a day since the event" };
  }
  const outcome = await postOnce(settingsOf(deps), { ...delivery, ...endpoint }, deps.clock());
  const ok = outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300;
  return ok
    ? { status: "delivered", responseStatus: outcome.status }
    : { status: "retry", responseStatus: outcome.status, error: outcome.error };
}
