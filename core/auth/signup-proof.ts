import { timingSafeEqual } from "node:crypto";
import type { Kysely } from "kysely";
import { siteHmac } from "../conversation-mail/unsubscribe.js";
import type { Database } from "../../db/schema.js";
import { DAY_MS } from "../shared/clock.js";
import { isId } from "../shared/ids.js";

/** As long as the mailed link works. */
const PROOF_TTL_MS = DAY_MS;

/**
 * Proof that this browser signed up as (or gave the password of) `userId`, until a day from
 * `now`: kept in a cookie, so that opening the verification link in the same browser signs the new
 * member in (issue 33), while the link alone, forwarded or opened by a mail scanner, signs nobody
 * in. It grants nothing else; its end is part of what is signed.
 */
export async function signupProof(db: Kysely<Database>, userId: string, now: Date) {
  const until = String(now.getTime() + PROOF_TTL_MS);
  return `${userId}.${until}.${await siteHmac(db, `signup:${userId}:${until}`)}`;
}

/** Whether `proof` was made by `signupProof` for `userId` and has not ended by `now`. */
export async function isSignupProof(
  db: Kysely<Database>,
  userId: string,
  proof: string,
  now: Date,
) {
  const [id, until, mac] = proof.split(".");
  if (id !== userId || !isId(userId) || !until || !/^\d{1,15}$/.test(until) || !mac) return false;
  if (Number(until) <= now.getTime()) return false;
  const expected = Buffer.from(await siteHmac(db, `signup:${userId}:${until}`));
  const given = Buffer.from(mac);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
