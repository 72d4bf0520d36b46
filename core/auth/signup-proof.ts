import { timingSafeEqual } from "node:crypto";
import type { Kysely } from "kysely";
import { siteHmac } from "../conversation-mail/unsubscribe.js";
import type { Database } from "../../db/schema.js";
import { isId } from "../shared/ids.js";

/**
 * Proof that this browser signed up as (or gave the password of) `userId`: kept in a cookie, so
 * that opening the verification link in the same browser signs the new member in (issue 33), while
 * the link alone, forwarded or opened by a mail scanner, signs nobody in. It grants nothing else.
 */
export async function signupProof(db: Kysely<Database>, userId: string) {
  return `${userId}.${await siteHmac(db, `signup:${userId}`)}`;
}

/** Whether `proof` was made by `signupProof` for `userId`. */
export async function isSignupProof(db: Kysely<Database>, userId: string, proof: string) {
  if (!isId(userId) || proof.length > 200) return false;
  const expected = Buffer.from(await signupProof(db, userId));
  const given = Buffer.from(proof);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
