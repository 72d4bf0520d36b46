import { createHmac, timingSafeEqual } from "node:crypto";
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.js";
import type { CoreDeps } from "../deps.js";
import { notFound } from "../shared/errors.js";
import { isId } from "../shared/ids.js";
import { setEmailNotifications } from "../user-settings/user-settings-service.js";
import { settingsMessages } from "../../contract/user-settings.js";

// The key lives in the database (made by migration 010), so every instance signs alike; read once.
const keys = new WeakMap<Kysely<Database>, Promise<string>>();

function unsubscribeKey(db: Kysely<Database>) {
  let key = keys.get(db);
  if (!key) {
    key = db
      .selectFrom("site_secrets")
      .select("value")
      .where("name", "=", "unsubscribe")
      .executeTakeFirstOrThrow()
      .then((row) => row.value);
    key.catch(() => keys.delete(db));
    keys.set(db, key);
  }
  return key;
}

/**
 * The token of a person's unsubscribe link: an HMAC of their id, so it cannot be guessed, needs no
 * row, and grants nothing but turning this mail off (it is no session).
 */
export const unsubscribeToken = (db: Kysely<Database>, userId: string) =>
  siteHmac(db, `unsubscribe:${userId}`);

/**
 * An HMAC of `text` with the site's key. Each use names its purpose first in `text`
 * (`unsubscribe:`, `signup:`), so a value made for one is never valid for another.
 */
export async function siteHmac(db: Kysely<Database>, text: string) {
  return createHmac("sha256", await unsubscribeKey(db))
    .update(text)
    .digest("base64url");
}

async function isValidToken(db: Kysely<Database>, userId: string, token: string) {
  if (!isId(userId) || token.length > 100) return false;
  const expected = Buffer.from(await unsubscribeToken(db, userId));
  const given = Buffer.from(token);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** Where a mail's unsubscribe links lead: the page (a button) and the one-click POST (RFC 8058). */
export async function unsubscribeLinks(deps: Pick<CoreDeps, "db" | "site">, userId: string) {
  const token = await unsubscribeToken(deps.db, userId);
  return {
    page: `${deps.site.mailLinkUrl}/unsubscribe/${userId}/${token}`,
    oneClick: `${deps.site.publicUrl}/api/unsubscribe/${userId}/${token}`,
  };
}

/** Checks a mailed link without using it (the page shows its button only for a good one). */
export async function checkUnsubscribeLink(
  deps: Pick<CoreDeps, "db">,
  userId: string,
  token: string,
) {
  if (!(await isValidToken(deps.db, userId, token))) {
    throw notFound(settingsMessages.badUnsubscribeLink);
  }
}

/** Turns conversation mail off for the link's owner: no session, the link is the proof. */
export async function unsubscribe(
  deps: Pick<CoreDeps, "db" | "clock">,
  userId: string,
  token: string,
) {
  await checkUnsubscribeLink(deps, userId, token);
  const user = await deps.db
    .selectFrom("users")
    .select("id")
    .where("id", "=", userId)
    .executeTakeFirst();
  if (!user) throw notFound(settingsMessages.badUnsubscribeLink);
  await setEmailNotifications(deps, userId, false);
  return { message: settingsMessages.unsubscribed };
}
