import type { TokenKind } from "../../db/schema.js";
import type { CoreDeps } from "../deps.js";
import { addMs, iso } from "../shared/clock.js";
import { newId } from "../shared/ids.js";
import { hashToken, randomToken } from "./tokens.js";

type Deps = Pick<CoreDeps, "db" | "clock">;

/**
 * Issues a single-use token for a mailed link. A new password-reset or e-mail-change link replaces
 * the older ones; older verification links stay good until they expire, as people click the mail
 * they find first. `address` is the one the link is mailed to, which opening it proves.
 */
export async function issueToken(
  deps: Deps,
  userId: string,
  kind: TokenKind,
  ttlMs: number,
  address: string | null = null,
) {
  const now = deps.clock();
  const token = randomToken();
  await deps.db.transaction().execute(async (trx) => {
    // The account's row first (a no-op update locks it on PostgreSQL), so two requests at once
    // replace each other's link in turn instead of both leaving theirs.
    await trx
      .updateTable("users")
      .set((eb) => ({ updated_at: eb.ref("updated_at") }))
      .where("id", "=", userId)
      .execute();
    let stale = trx
      .deleteFrom("verification_tokens")
      .where("user_id", "=", userId)
      .where("kind", "=", kind);
    // Sign-up links and pending sign-ins (two browsers at once) stay good side by side.
    if (kind === "email" || kind === "sign-in") stale = stale.where("expires_at", "<=", iso(now));
    await stale.execute();
    await trx
      .insertInto("verification_tokens")
      .values({
        id: newId(),
        user_id: userId,
        kind,
        token_hash: hashToken(token),
        new_email: address,
        created_at: iso(now),
        expires_at: iso(addMs(now, ttlMs)),
      })
      .execute();
  });
  return token;
}

/** True while the link is good; does not use it up (the reset page checks before it asks). */
export async function isTokenLive(deps: Deps, userId: string, kind: TokenKind, token: string) {
  const row = await deps.db
    .selectFrom("verification_tokens")
    .select("id")
    .where("user_id", "=", userId)
    .where("kind", "=", kind)
    .where("token_hash", "=", hashToken(token))
    .where("expires_at", ">", iso(deps.clock()))
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Uses a token of one of the kinds up in one statement, so two clicks racing cannot both succeed;
 * what it was for, or undefined when the link is bad, used or expired.
 */
export function consumeToken(
  deps: Deps,
  userId: string,
  kinds: TokenKind | readonly TokenKind[],
  token: string,
) {
  return deps.db
    .deleteFrom("verification_tokens")
    .where("user_id", "=", userId)
    .where("kind", "in", typeof kinds === "string" ? [kinds] : kinds)
    .where("token_hash", "=", hashToken(token))
    .where("expires_at", ">", iso(deps.clock()))
    .returning(["kind", "new_email"])
    .executeTakeFirst();
}

/** The address a pending e-mail change waits to confirm, if a live link for one is out. */
export async function pendingEmailChange(deps: Deps, userId: string) {
  const row = await deps.db
    .selectFrom("verification_tokens")
    .select("new_email")
    .where("user_id", "=", userId)
    .where("kind", "=", "email-change")
    .where("expires_at", ">", iso(deps.clock()))
    .executeTakeFirst();
  return row?.new_email ?? undefined;
}
