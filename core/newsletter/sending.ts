import type { Kysely } from "kysely";
import { newsletterMessages, type PostNewsletterResponse } from "../../contract/newsletter.js";
import { postPath } from "../../contract/page-paths.js";
import type { Database } from "../../db/schema.js";
import type { CoreDeps } from "../deps.js";
import type { Subscriber } from "../events/subscribers.js";
import { imageUrl } from "../media/images.js";
import {
  enqueue,
  pendingRow,
  type ChannelRules,
  type OutboxItem,
  type TryOutcome,
} from "../outbox/outbox.js";
import { addMs, DAY_MS, iso } from "../shared/clock.js";
import { forbidden, notFound } from "../shared/errors.js";
import { isId } from "../shared/ids.js";
import type { Actor } from "../users/policies.js";
import { pruneLapsed, subscriptionLinks } from "./subscriptions.js";

// A post mailed to its subscribers (decision 028): once, when it first goes public, one outbox
// row a recipient, sent at NEWSLETTER_RATE a minute; a 4xx is retried for a day, a 5xx bounces.

/** Mails a minute, unless NEWSLETTER_RATE says otherwise. */
export const NEWSLETTER_RATE = 600;
/** Rows inserted by one statement (SQLite allows 32,766 variables a statement). */
const ROWS_AT_ONCE = 500;

export const newsletterRules: ChannelRules = {
  leaseMs: 2 * 60_000,
  batch: 10,
  // One minute, doubling, for as long as a day from the post's publication.
  retryAt: (item, now) => {
    const next = addMs(
      now,
      Math.min(6 * 60 * 60_000, 60_000 * 2 ** Math.max(0, item.attempts - 1)),
    );
    return next.getTime() - new Date(item.created_at).getTime() > DAY_MS ? undefined : next;
  },
  // What the post's stats page counts ("Sent to n, delivered, failed") is kept a year.
  keptMs: 365 * DAY_MS,
};

interface Payload {
  postId: string;
  subscriptionId: string;
}

/**
 * `post.published`: a post marked "send" that was never mailed is queued for each active
 * subscriber of the site and of its writer; an address subscribed to both gets one mail (the
 * site's subscription names it). The `newsletter_sends` row makes it once ever.
 */
export const mailSubscribers: Subscriber<"post.published"> = async (deps, event, at) => {
  const post = await deps.db
    .selectFrom("posts")
    .select(["id", "user_id", "newsletter", "status"])
    .where("id", "=", event.postId)
    .executeTakeFirst();
  if (post?.newsletter !== "send" || post.status !== "published") return undefined;
  const sent = await deps.db
    .selectFrom("newsletter_sends")
    .select("post_id")
    .where("post_id", "=", post.id)
    .executeTakeFirst();
  if (sent) return undefined;
  const subscriptions = await deps.db
    .selectFrom("subscriptions")
    .select(["id", "email", "scope_key"])
    .where("status", "=", "active")
    .where("scope_key", "in", ["site", post.user_id])
    .execute();
  const byAddress = new Map<string, string>();
  for (const row of subscriptions) {
    if (!byAddress.has(row.email) || row.scope_key === "site") byAddress.set(row.email, row.id);
  }
  const rows = [...byAddress.values()].map((subscriptionId) =>
    pendingRow(at, {
      channel: "newsletter",
      topic: post.id,
      payload: JSON.stringify({ postId: post.id, subscriptionId } satisfies Payload),
    }),
  );
  return async (trx: Kysely<Database>) => {
    const claimed = await trx
      .insertInto("newsletter_sends")
      .values({ post_id: post.id, started_at: iso(at), recipients: rows.length })
      .onConflict((conflict) => conflict.column("post_id").doNothing())
      .executeTakeFirst();
    if (Number(claimed.numInsertedOrUpdatedRows ?? 0) === 0) return;
    for (let from = 0; from < rows.length; from += ROWS_AT_ONCE) {
      await enqueue(trx, rows.slice(from, from + ROWS_AT_ONCE));
    }
  };
};

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => `&#${String(c.codePointAt(0))};`);

/** The post's HTML with this site's own addresses made absolute, as a mail needs them. */
const absolute = (html: string, base: string) =>
  html
    .replace(/(\s(?:src|href|srcset)=")\//g, `$1${base}/`)
    .replace(/(,\s*)\/uploads\//g, `$1${base}/uploads/`);

/** The mail of one post to one subscriber: HTML with inline styles, and plain text. */
async function newsletterMail(
  deps: Pick<CoreDeps, "db" | "site" | "storage">,
  post: {
    id: string;
    title: string;
    html: string;
    body_text: string;
    image_key: string | null;
    image_alt: string | null;
    author: string;
  },
  subscription: { id: string; email: string; scope_key: string },
) {
  const links = await subscriptionLinks(deps, subscription.id);
  const url = `${deps.site.publicUrl}${postPath(post.id)}`;
  const why =
    subscription.scope_key === "site"
      ? `You get this because you subscribed to ${deps.site.title}.`
      : `You get this because you subscribed to ${post.author} on ${deps.site.title}.`;
  const cover = post.image_key
    ? `<img src="${escapeHtml(imageUrl(deps.storage, post.image_key, "lg"))}" alt="${escapeHtml(post.image_alt ?? post.title)}" width="600" style="display:block;width:100%;max-width:600px;height:auto;border-radius:8px;margin:0 0 24px">`
    : "";
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="color-scheme" content="light dark"><title>${escapeHtml(post.title)}</title></head><body style="margin:0;padding:24px 12px;background:#ffffff;color:#1f2328;font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;font-size:17px;line-height:1.6"><div style="max-width:600px;margin:0 auto">${cover}<h1 style="font-size:28px;line-height:1.25;margin:0 0 8px">${escapeHtml(post.title)}</h1><p style="margin:0 0 24px;color:#59636e">By ${escapeHtml(post.author)}</p><div>${absolute(post.html, deps.site.publicUrl)}</div><p style="margin:32px 0"><a href="${escapeHtml(url)}" style="color:#0969da">Read it on ${escapeHtml(deps.site.title)} and join the conversation</a></p><hr style="border:none;border-top:1px solid #d1d9e0"><p style="font-size:13px;color:#59636e">${escapeHtml(why)} No opens or clicks are tracked. <a href="${escapeHtml(links.unsubscribePage)}" style="color:#59636e">Unsubscribe</a></p></div></body></html>`;
  const text = `${post.title}\nBy ${post.author}\n\n${post.body_text}\n\nRead it on ${deps.site.title}: ${url}\n\n${why}\nUnsubscribe: ${links.unsubscribePage}\n`;
  const host = new URL(deps.site.publicUrl).hostname;
  return {
    to: subscription.email,
    subject: post.title,
    text,
    html,
    link: url,
    headers: {
      "List-Unsubscribe": `<${links.unsubscribeOneClick}>`,
      "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
      "List-Id": `${deps.site.title.replace(/[<>"]/g, "")} <newsletter.${host}>`,
    },
  };
}

/** The SMTP reply code of a failed send, when the server gave one. */
const smtpCode = (error: unknown) =>
  typeof error === "object" && error !== null && "responseCode" in error
    ? Number(error.responseCode)
    : undefined;

/** Sends at most `perMinute` mails a minute from this instance. */
function pacer(perMinute: number) {
  let next = 0;
  return async () => {
    const now = Date.now();
    const wait = Math.max(0, next - now);
    next = Math.max(now, next) + 60_000 / perMinute;
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  };
}
const pacers = new WeakMap<object, () => Promise<void>>();

/** One try of one newsletter mail. A 5xx bounces the address: it is never mailed again. */
export async function deliverNewsletter(
  deps: CoreDeps,
  item: OutboxItem,
): Promise<TryOutcome | "settled"> {
  const { postId, subscriptionId } = JSON.parse(item.payload) as Payload;
  const subscription = await deps.db
    .selectFrom("subscriptions")
    .select(["id", "email", "scope_key", "status"])
    .where("id", "=", subscriptionId)
    .executeTakeFirst();
  const post = await deps.db
    .selectFrom("posts")
    .innerJoin("users", "users.id", "posts.user_id")
    .select([
      "posts.id",
      "posts.title",
      "posts.html",
      "posts.body_text",
      "posts.image_key",
      "posts.image_alt",
      "posts.status",
      "users.username as author",
    ])
    .where("posts.id", "=", postId)
    .executeTakeFirst();
  if (subscription?.status !== "active" || post?.status !== "published")
    return { status: "skipped" };
  let pace = pacers.get(deps.db);
  if (!pace) {
    pace = pacer(deps.newsletterRate ?? NEWSLETTER_RATE);
    pacers.set(deps.db, pace);
  }
  await pace();
  try {
    await deps.mailer.send({
      ...(await newsletterMail(deps, post, subscription)),
      key: { id: item.id, date: new Date(item.created_at) },
    });
    return { status: "delivered" };
  } catch (error) {
    const code = smtpCode(error);
    if (code === undefined || code < 500) {
      return {
        status: "retry",
        responseStatus: code,
        error: String(error).slice(0, 200),
        cause: error,
      };
    }
    const now = iso(deps.clock());
    await deps.db.transaction().execute(async (trx) => {
      await trx
        .updateTable("subscriptions")
        .set({ status: "bounced", ended_at: now })
        .where("email", "=", subscription.email)
        .execute();
      await trx
        .updateTable("outbox")
        .set({
          status: "failed",
          next_attempt_at: null,
          last_attempt_at: now,
          finished_at: now,
          response_status: code,
          last_error: String(error).slice(0, 200),
        })
        .where("id", "=", item.id)
        .execute();
    });
    return "settled";
  }
}

const choresDone = new WeakMap<object, number>();

/** Before a look, once an hour: unconfirmed subscriptions past their week go. */
export async function newsletterChores(deps: CoreDeps) {
  const now = deps.clock().getTime();
  if (now - (choresDone.get(deps.db) ?? 0) < 60 * 60_000) return 0;
  choresDone.set(deps.db, now);
  await pruneLapsed(deps);
  return 0;
}

/** `GET /api/posts/:id/newsletter`: for its writer or an admin. */
export async function postNewsletter(
  deps: Pick<CoreDeps, "db">,
  actor: Actor,
  postId: string,
): Promise<PostNewsletterResponse> {
  const post = isId(postId)
    ? await deps.db
        .selectFrom("posts")
        .select(["id", "user_id"])
        .where("id", "=", postId)
        .executeTakeFirst()
    : undefined;
  if (!post) throw notFound(newsletterMessages.postNotFound);
  if (post.user_id !== actor.id && !actor.isAdmin) throw forbidden();
  const send = await deps.db
    .selectFrom("newsletter_sends")
    .select(["started_at", "recipients"])
    .where("post_id", "=", post.id)
    .executeTakeFirst();
  if (!send) return { status: "not_sent", recipients: 0, delivered: 0, failed: 0, sentAt: null };
  const counts = await deps.db
    .selectFrom("outbox")
    .select(["status", (eb) => eb.fn.countAll<number | string>().as("count")])
    .where("channel", "=", "newsletter")
    .where("topic", "=", post.id)
    .groupBy("status")
    .execute();
  const count = (status: string) => Number(counts.find((row) => row.status === status)?.count ?? 0);
  const pending = count("pending");
  return {
    status: pending > 0 ? "sending" : "sent",
    recipients: send.recipients,
    delivered: count("delivered"),
    failed: count("failed"),
    sentAt: send.started_at,
  };
}
