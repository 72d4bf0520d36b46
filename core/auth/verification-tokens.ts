import type { TokenKind } from "../../db/schema.js";
import type { CoreDeps } from "../deps.js";
import { addMs, iso } from "../shared/clock.js";
import { newId } from "../shared/ids.js";
import { hashToken, randomToken } from "./tokens.js";

type Deps = Pick<CoreDeps, "db" | "clock">;

/**
 * Issues a single-use token for a mailed link. A new password-reset link replaces the older ones;
 * older verification links stay good until they expire, as people click the mail they find first.
 */
export async function issueToken(deps: Deps, userId: string, kind: TokenKind, ttlMs: number) {
  const now = deps.clock();
  const token = randomToken();
  await deps.db.transaction().execute(async (trx) => {
    let stale = trx
      .deleteFrom("verification_tokens")
      .where("user_id", "=", userId)
      .where("kind", "=", kind);
    if (kind === "email") stale = stale.where("expires_at", "<=", iso(now));
    await stale.execute();
    await trx
      .insertInto("verification_tokens")
      .values({
        id: newId(),
        user_id: userId,
        kind,
        token_hash: hashToken(token),
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

/** Uses a token up in one statement, so two clicks racing cannot both succeed. */
export async function consumeToken(deps: Deps, userId: string, kind: TokenKind, token: string) {
  const result = await deps.db
    .deleteFrom("verification_tokens")
    .where("user_id", "=", userId)
    .where("kind", "=", kind)
    .where("token_hash", "=", hashToken(token))
    .where("expires_at", ">", iso(deps.clock()))
    .executeTakeFirst();
  return result.numDeletedRows === 1n;
}
