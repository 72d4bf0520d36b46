import type { Kysely } from "kysely";
import { newsletterMessages, type PostNewsletterResponse } from "../../contract/newsletter.js";
import { postPath } from "../../contract/page-paths.js";
import type { Database } from "../../db/schema.js";
import { withAbsoluteAddresses } from "../posts/body.js";
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
import { newsletterAudience } from "./audience.js";

// A post mailed to its subscribers (decision 028): once, when it first goes public, one outbox
// row a recipient, sent at NEWSLETTER_RATE a minute; a 4xx is retried for a day, a 5xx bounces.

/** Mails a minute, unless NEWSLETTER_RATE says otherwise. */
export const NEWSLETTER_RATE = 600;
/** Rows inserted by one statement (SQLite allows 32,766 variables a statement). */
const ROWS_AT_ONCE = 500;

export const newsletterRules: ChannelRules = {
  leaseMs: 2 * 60_000,
  // Sent side by side (core/outbox/channels.ts): also the SMTP connections open at once.
  batch: 8,
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

/** What a mail client shows after the subject: the body's first words. */
const previewOf = (text: string) => {
  const words = text.replace(/\s+/g, " ").trim();
  return words.length > 140 ? `${words.slice(0, 139).trimEnd()}…` : words;
};

/**
 * Where a subscriber's own unsubscribe address goes in a post's mail rendered for all of them:
 * rendering (React Email, inlined styles, the plain-text twin) takes ~15 ms a mail, the swap
 * microseconds.
 */
const UNSUBSCRIBE_SLOT = "https://unsubscribe.invalid/newsletter-slot";
/** Posts' mails kept rendered, per site (a process may serve several in tests): the newest few. */
const RENDERED_KEPT = 8;
const renderedMails = new WeakMap<object, Map<string, Promise<{ html: string; text: string }>>>();

/** The rendered mail under `key`, made by `render` once while it is among the newest kept. */
function renderedOnce(
  site: object,
  key: string,
  render: () => Promise<{ html: string; text: string }>,
) {
  let kept = renderedMails.get(site);
  if (!kept) {
    kept = new Map();
    renderedMails.set(site, kept);
  }
  let mail = kept.get(key);
  if (!mail) {
    mail = render();
    kept.set(key, mail);
    // A failed render is not kept: the next try renders again.
    mail.catch(() => kept.delete(key));
    for (const oldest of kept.keys()) {
      if (kept.size <= RENDERED_KEPT) break;
      kept.delete(oldest);
    }
  }
  return mail;
}

const attributeText = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");

/** The mail of one post to one subscriber: HTML with inline styles, and plain text. */
async function newsletterMail(
  deps: Pick<CoreDeps, "db" | "site" | "storage" | "mailTemplates">,
  post: {
    id: string;
    title: string;
    html: string;
    body_text: string;
    image_key: string | null;
    image_alt: string | null;
    author: string;
    /** Its version: the mail is rendered once for every subscriber of it (not for a test). */
    updated_at?: string;
  },
  subscription: { id: string; email: string; scope_key: string },
  test = false,
) {
  const links = await subscriptionLinks(deps, subscription.id);
  const url = `${deps.site.publicUrl}${postPath(post.id)}`;
  const why = test
    ? "This is a test: subscribers get this mail with their own unsubscribe link."
    : subscription.scope_key === "site"
      ? `You get this because you subscribed to ${deps.site.title}.`
      : `You get this because you subscribed to ${post.author} on ${deps.site.title}.`;
  const render = async (unsubscribeUrl: string) => {
    const { renderPostMail } = await deps.mailTemplates();
    return renderPostMail({
      siteTitle: deps.site.title,
      title: post.title,
      author: post.author,
      cover: post.image_key
        ? {
            url: imageUrl(deps.storage, post.image_key, "lg"),
            alt: post.image_alt ?? post.title,
          }
        : undefined,
      bodyHtml: withAbsoluteAddresses(post.html, deps.site.publicUrl),
      preview: previewOf(post.body_text),
      readUrl: url,
      why,
      unsubscribeUrl,
    });
  };
  const shared =
    post.updated_at === undefined || test
      ? undefined
      : await renderedOnce(
          deps.db,
          [post.id, post.updated_at, why, deps.site.title, deps.site.publicUrl].join("\n"),
          () => render(UNSUBSCRIBE_SLOT),
        );
  const { html, text } = shared
    ? {
        html: shared.html.replaceAll(UNSUBSCRIBE_SLOT, attributeText(links.unsubscribePage)),
        text: shared.text.replaceAll(UNSUBSCRIBE_SLOT, links.unsubscribePage),
      }
    : await render(links.unsubscribePage);
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

/** What "Send me a test e-mail" answers. */
export const TEST_MAIL_SENT = "A test e-mail is on its way to your inbox";

/**
 * "Send me a test e-mail" (decision 028): the post's mail as its subscribers would get it, now,
 * whatever its status, to the address of the one asking (its writer, or an admin) alone.
 */
export async function sendTestNewsletter(deps: CoreDeps, actor: Actor, postId: string) {
  const post = isId(postId)
    ? await deps.db
        .selectFrom("posts")
        .innerJoin("users", "users.id", "posts.user_id")
        .select([
          "posts.id",
          "posts.user_id",
          "posts.title",
          "posts.html",
          "posts.body_text",
          "posts.image_key",
          "posts.image_alt",
          "users.username as author",
        ])
        .where("posts.id", "=", postId)
        .executeTakeFirst()
    : undefined;
  if (!post) throw notFound(newsletterMessages.postNotFound);
  if (post.user_id !== actor.id && !actor.isAdmin) throw forbidden();
  const { email } = await deps.db
    .selectFrom("users")
    .select("email")
    .where("id", "=", actor.id)
    .executeTakeFirstOrThrow();
  const mail = await newsletterMail(
    deps,
    post,
    { id: post.id, email, scope_key: post.user_id },
    true,
  );
  await deps.mailer.send({ ...mail, subject: `[Test] ${post.title}` });
  return { message: TEST_MAIL_SENT };
}

/** The SMTP reply code of a failed send, when the server gave one. */
const smtpCode = (error: unknown) =>
  typeof error === "object" && error !== null && "responseCode" in error
    ? Number(error.responseCode)
    : undefined;

/**
 * Sends at most `perMinute` mails a minute from this instance. Each call takes the next slot at
 * once, so tries made side by side still start one slot apart.
 */
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
      "posts.updated_at",
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
  const mailing = await mailingOf(deps, post.id);
  // Not sent yet: how many it would go to now, as its publish controls say.
  return mailing.status === "not_sent"
    ? { ...mailing, recipients: await newsletterAudience(deps, post.user_id) }
    : mailing;
}

/**
 * How a post's mailing went, in one statement: its send (none: not sent) and its mails by status
 * in the outbox. The caller has checked who asks.
 */
export async function mailingOf(
  deps: Pick<CoreDeps, "db">,
  postId: string,
): Promise<PostNewsletterResponse> {
  const rows = await deps.db
    .selectFrom("newsletter_sends")
    .leftJoin("outbox", (join) =>
      join
        .on("outbox.channel", "=", "newsletter")
        .onRef("outbox.topic", "=", "newsletter_sends.post_id"),
    )
    .select((eb) => [
      "newsletter_sends.started_at",
      "newsletter_sends.recipients",
      "outbox.status",
      eb.fn.count<number | string>("outbox.id").as("count"),
    ])
    .where("newsletter_sends.post_id", "=", postId)
    .groupBy(["newsletter_sends.started_at", "newsletter_sends.recipients", "outbox.status"])
    .execute();
  const send = rows[0];
  if (!send) return { status: "not_sent", recipients: 0, delivered: 0, failed: 0, sentAt: null };
  const count = (status: string) => Number(rows.find((row) => row.status === status)?.count ?? 0);
  return {
    status: count("pending") > 0 ? "sending" : "sent",
    recipients: send.recipients,
    delivered: count("delivered"),
    failed: count("failed"),
    sentAt: send.started_at,
  };
}
