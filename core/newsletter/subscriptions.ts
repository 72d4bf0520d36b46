import { timingSafeEqual } from "node:crypto";
import { newsletterMessages as messages, subscribeSchema } from "../../contract/newsletter.js";
import { newsletterConfirmPath, newsletterUnsubscribePath } from "../../contract/page-paths.js";
import { siteHmac } from "../conversation-mail/unsubscribe.js";
import type { CoreDeps } from "../deps.js";
import { addMs, DAY_MS, iso } from "../shared/clock.js";
import { notFound } from "../shared/errors.js";
import { isId, newId } from "../shared/ids.js";
import { validate } from "../shared/validate.js";
import type { Actor } from "../users/policies.js";

// Subscriptions by address (DESIGN.md 11, "Newsletters"; decision 028). Nobody learns from an
// answer whether an address is subscribed: every subscribe gets the same one.

/** Confirmation mails one address may be sent in a day. */
export const CONFIRMATIONS_A_DAY = 3;
/** An unconfirmed subscription lapses (and is deleted) after this long. */
export const CONFIRM_WITHIN_MS = 7 * DAY_MS;

type Deps = Pick<CoreDeps, "db" | "clock" | "mailer" | "site" | "log" | "mailTemplates">;

/** The secret part of a subscription's links: an HMAC of its id, for one purpose each. */
const linkToken = (deps: Pick<CoreDeps, "db">, purpose: "confirm" | "unsubscribe", id: string) =>
  siteHmac(deps.db, `newsletter-${purpose}:${id}`);

async function isValidLink(
  deps: Pick<CoreDeps, "db">,
  purpose: "confirm" | "unsubscribe",
  id: string,
  token: string,
) {
  if (!isId(id) || token.length > 100) return false;
  const expected = Buffer.from(await linkToken(deps, purpose, id));
  const given = Buffer.from(token);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** A subscription's links: the confirm page, and the unsubscribe page and one-click address. */
export async function subscriptionLinks(deps: Pick<CoreDeps, "db" | "site">, id: string) {
  const unsubscribe = `${id}.${await linkToken(deps, "unsubscribe", id)}`;
  return {
    confirm: `${deps.site.mailLinkUrl}${newsletterConfirmPath(id, await linkToken(deps, "confirm", id))}`,
    unsubscribePage: `${deps.site.mailLinkUrl}${newsletterUnsubscribePath(unsubscribe)}`,
    unsubscribeOneClick: `${deps.site.publicUrl}${newsletterUnsubscribePath(unsubscribe)}`,
  };
}

async function sendConfirmation(deps: Deps, id: string, email: string, whose: string) {
  const now = deps.clock();
  const sent = await deps.db
    .selectFrom("newsletter_confirmations")
    .select((eb) => eb.fn.countAll<number | string>().as("count"))
    .where("email", "=", email)
    .where("sent_at", ">", iso(addMs(now, -DAY_MS)))
    .executeTakeFirstOrThrow();
  if (Number(sent.count) >= CONFIRMATIONS_A_DAY) return;
  await deps.db
    .insertInto("newsletter_confirmations")
    .values({ email, sent_at: iso(now) })
    .execute();
  const { confirm } = await subscriptionLinks(deps, id);
  const subject = `Confirm your subscription to ${whose}`;
  const intro = `Someone (we hope you) asked to get new posts of ${whose} by e-mail at this address. Nothing is sent until you confirm; if it was not you, ignore this mail.`;
  const { renderConfirmationMail } = await deps.mailTemplates();
  const { html, text } = await renderConfirmationMail({ subject, intro, confirmUrl: confirm });
  await deps.mailer
    .send({ to: email, subject, text, html, link: confirm })
    .catch((error: unknown) => {
      // The answer is the same either way; the reader may ask again.
      deps.log.warn({ err: error }, "could not send a newsletter confirmation");
    });
}

/** The writer a subscription is to, by id; 404 for any id that is no writer. */
async function authorOf(deps: Pick<CoreDeps, "db">, authorId: string) {
  const author = isId(authorId)
    ? await deps.db
        .selectFrom("users")
        .select(["id", "username"])
        .where("id", "=", authorId)
        .where("suspended_at", "is", null)
        .executeTakeFirst()
    : undefined;
  if (!author) throw notFound(messages.authorNotFound);
  return author;
}

/**
 * Subscribes an address to the site or one writer. A signed-in member subscribing their own
 * verified address is subscribed at once; anyone else is sent a confirmation mail (at most three
 * an address a day) and gets the same answer whatever the address's state.
 */
export async function subscribe(deps: Deps, actor: Actor | undefined, input: unknown) {
  const { email: given, authorId } = validate(subscribeSchema, input);
  const email = given.toLowerCase();
  const author = authorId === undefined ? undefined : await authorOf(deps, authorId);
  const scopeKey = author ? author.id : "site";
  const now = iso(deps.clock());
  const member = actor
    ? await deps.db
        .selectFrom("users")
        .select(["email", "is_verified"])
        .where("id", "=", actor.id)
        .executeTakeFirst()
    : undefined;
  const ownAddress = member?.is_verified === 1 && member.email.toLowerCase() === email;
  const existing = await deps.db
    .selectFrom("subscriptions")
    .select(["id", "status"])
    .where("email", "=", email)
    .where("scope_key", "=", scopeKey)
    .executeTakeFirst();
  // A bounced address gets nothing more, from anyone: the same answer.
  if (existing?.status === "bounced") return { message: messages.checkInbox };
  if (ownAddress) {
    if (existing?.status === "active") return { message: messages.subscribed };
    const values = { status: "active" as const, confirmed_at: now, ended_at: null };
    if (existing) {
      await deps.db
        .updateTable("subscriptions")
        .set(values)
        .where("id", "=", existing.id)
        .execute();
    } else {
      await deps.db
        .insertInto("subscriptions")
        .values({
          id: newId(),
          email,
          scope_key: scopeKey,
          author_id: author?.id ?? null,
          created_at: now,
          ...values,
        })
        .onConflict((conflict) => conflict.columns(["email", "scope_key"]).doUpdateSet(values))
        .execute();
    }
    return { message: messages.subscribed };
  }
  if (existing?.status === "active") return { message: messages.checkInbox };
  let id = existing?.id;
  if (existing) {
    await deps.db
      .updateTable("subscriptions")
      .set({ status: "pending", created_at: now, ended_at: null })
      .where("id", "=", existing.id)
      .execute();
  } else {
    id = newId();
    const inserted = await deps.db
      .insertInto("subscriptions")
      .values({
        id,
        email,
        scope_key: scopeKey,
        author_id: author?.id ?? null,
        status: "pending",
        created_at: now,
        confirmed_at: null,
        ended_at: null,
      })
      .onConflict((conflict) => conflict.columns(["email", "scope_key"]).doNothing())
      .executeTakeFirst();
    // Asked twice at once: the other request made the row and sends its mail.
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0)
      return { message: messages.checkInbox };
  }
  if (id) await sendConfirmation(deps, id, email, author ? author.username : deps.site.title);
  return { message: messages.checkInbox };
}

/** Checks a confirmation link without using it: the page shows its button only for a good one. */
export async function checkConfirmLink(
  deps: Pick<CoreDeps, "db" | "clock">,
  id: string,
  token: string,
) {
  const row = (await isValidLink(deps, "confirm", id, token))
    ? await deps.db
        .selectFrom("subscriptions")
        .select(["id", "status", "created_at"])
        .where("id", "=", id)
        .executeTakeFirst()
    : undefined;
  const lapsed =
    row?.status === "pending" &&
    new Date(row.created_at).getTime() + CONFIRM_WITHIN_MS < deps.clock().getTime();
  if (!row || lapsed || row.status === "bounced" || row.status === "unsubscribed") {
    throw notFound(messages.badLink);
  }
  return row;
}

/** Confirms a subscription from its mailed link (a button on the page: a GET changes nothing). */
export async function confirmSubscription(
  deps: Pick<CoreDeps, "db" | "clock">,
  id: string,
  token: string,
) {
  const row = await checkConfirmLink(deps, id, token);
  if (row.status === "pending") {
    await deps.db
      .updateTable("subscriptions")
      .set({ status: "active", confirmed_at: iso(deps.clock()) })
      .where("id", "=", id)
      .where("status", "=", "pending")
      .execute();
  }
  return { message: messages.confirmed };
}

/** The subscription an unsubscribe token (`id.hmac`) names; 404 for any other. */
export async function checkUnsubscribeToken(deps: Pick<CoreDeps, "db">, token: string) {
  const [id = "", proof = ""] = token.split(".", 2);
  const row = (await isValidLink(deps, "unsubscribe", id, proof))
    ? await deps.db
        .selectFrom("subscriptions")
        .select(["id", "scope_key", "author_id"])
        .where("id", "=", id)
        .executeTakeFirst()
    : undefined;
  if (!row) throw notFound(messages.badLink);
  return row;
}

/** Ends a subscription from its mailed link: no session, the link is the proof (RFC 8058). */
export async function unsubscribeByToken(deps: Pick<CoreDeps, "db" | "clock">, token: string) {
  const row = await checkUnsubscribeToken(deps, token);
  await deps.db
    .updateTable("subscriptions")
    .set({ status: "unsubscribed", ended_at: iso(deps.clock()) })
    .where("id", "=", row.id)
    .where("status", "in", ["active", "pending"])
    .execute();
  return { message: messages.unsubscribed };
}

/** Deletes unconfirmed subscriptions past their week, and confirmation records past their day. */
export async function pruneLapsed(deps: Pick<CoreDeps, "db" | "clock">) {
  const now = deps.clock();
  await deps.db
    .deleteFrom("subscriptions")
    .where("status", "=", "pending")
    .where("created_at", "<", iso(addMs(now, -CONFIRM_WITHIN_MS)))
    .execute();
  await deps.db
    .deleteFrom("newsletter_confirmations")
    .where("sent_at", "<", iso(addMs(now, -DAY_MS)))
    .execute();
}
