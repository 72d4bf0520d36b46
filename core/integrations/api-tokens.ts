import { sql, type Kysely } from "kysely";
import {
  integrationMessages as m,
  TOKEN_PREFIX,
  TokenCreateSchema,
  TOKENS_PER_USER_MAX,
} from "../../contract/integrations.js";
import { compiledOnce } from "../../db/compiled-once.js";
import type { Database, TokenScope, UsersTable } from "../../db/schema.js";
import {
  LAST_SEEN_EVERY_MS,
  signedInRecently,
  underAdminRule,
  type ChangingSession,
} from "../auth/sessions.js";
import { notifySecurityChange } from "../auth/second-factor.js";
import { hashToken, randomToken } from "../auth/tokens.js";
import type { CoreDeps } from "../deps.js";
import { iso } from "../shared/clock.js";
import { conflict, forbidden, notFound } from "../shared/errors.js";
import { newId } from "../shared/ids.js";
import { validate } from "../shared/validate.js";

/** A personal API token (decision 025) as its owner sees it: never the token itself. */
export interface PresentedToken {
  _id: string;
  name: string;
  scope: TokenScope;
  createdAt: string;
  lastUsedAt: string | null;
}

/** The caller behind an API token: its owner's row, read fresh, and what the token allows. */
export interface TokenUser {
  tokenId: string;
  scope: TokenScope;
  user: UsersTable;
}

/** `blog_` and 256 random bits in base64url: 48 characters in all. */
const API_TOKEN_LENGTH = TOKEN_PREFIX.length + 43;

/**
 * The prefix lets secret scanners and the server tell a token apart; the length too, so a session
 * token (43 characters) that happens to begin with `blog_` is still read as a session.
 */
export const isApiToken = (token: string) =>
  token.length === API_TOKEN_LENGTH && token.startsWith(TOKEN_PREFIX);

/**
 * A new token for the signed-in person, shown this once. Like adding a passkey it needs a recent
 * sign-in: a session stolen long ago must not leave its thief a credential a password change does
 * not end. It remembers whether its session proved a second factor (the admin rule asks).
 */
export async function createApiToken(
  deps: Pick<CoreDeps, "db" | "clock" | "mailer" | "site" | "log">,
  userId: string,
  session: ChangingSession,
  body: unknown,
) {
  const input = validate(TokenCreateSchema, body);
  if (!signedInRecently(deps.clock(), session)) throw forbidden(m.signInAgain);
  const { count } = await deps.db
    .selectFrom("api_tokens")
    .select((eb) => eb.fn.countAll<number | string>().as("count"))
    .where("user_id", "=", userId)
    .executeTakeFirstOrThrow();
  if (Number(count) >= TOKENS_PER_USER_MAX) throw conflict(m.tooManyTokens);
  const token = `${TOKEN_PREFIX}${randomToken()}`;
  const row = {
    id: newId(),
    user_id: userId,
    name: input.name,
    scope: input.scope,
    token_hash: hashToken(token),
    second_factor: session.secondFactor ? 1 : 0,
    created_at: iso(deps.clock()),
    last_used_at: null,
  };
  await deps.db.insertInto("api_tokens").values(row).execute();
  // A token outlives the session that made it: its owner hears of it, as of a new passkey.
  const owner = await deps.db
    .selectFrom("users")
    .select(["id", "email", "username"])
    .where("id", "=", userId)
    .executeTakeFirst();
  if (owner) {
    const access = row.scope === "write" ? "read and write" : "read only";
    await notifySecurityChange(deps, owner, "token-created", `“${row.name}”, ${access}`);
  }
  return { ...present(row), token };
}

const present = (row: {
  id: string;
  name: string;
  scope: TokenScope;
  created_at: string;
  last_used_at: string | null;
}): PresentedToken => ({
  _id: row.id,
  name: row.name,
  scope: row.scope,
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
});

/** Revokes every token of the person (a password reset: whoever reset it may not trust them). */
export async function revokeUserTokens(db: Kysely<Database>, userId: string) {
  const result = await db.deleteFrom("api_tokens").where("user_id", "=", userId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The person's tokens, newest first, without the tokens. */
export async function listApiTokens(db: Kysely<Database>, userId: string) {
  const rows = await db
    .selectFrom("api_tokens")
    .select(["id", "name", "scope", "created_at", "last_used_at"])
    .where("user_id", "=", userId)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .execute();
  return rows.map(present);
}

/** Revokes one of the person's tokens at once (every instance reads tokens from the database). */
export async function revokeApiToken(db: Kysely<Database>, userId: string, tokenId: string) {
  const result = await db
    .deleteFrom("api_tokens")
    .where("id", "=", tokenId)
    .where("user_id", "=", userId)
    .executeTakeFirst();
  if (result.numDeletedRows !== 1n) throw notFound(m.tokenNotFound);
}

const tokenUser = compiledOnce<Database>();

/**
 * The owner behind a token, as `findSessionUser` finds a session's: a suspended account has none,
 * and an admin's token made without a second factor acts as a member's while the site requires one.
 */
export async function findTokenUser(
  db: Kysely<Database>,
  token: string,
  now: Date,
): Promise<TokenUser | undefined> {
  const tokenHash = hashToken(token);
  const [row] = await tokenUser(db, { parameters: [tokenHash] }, () =>
    db
      .selectFrom("api_tokens")
      .innerJoin("users", "users.id", "api_tokens.user_id")
      .selectAll("users")
      .select((eb) => [
        "api_tokens.id as token_id",
        "api_tokens.scope as scope",
        "api_tokens.last_used_at as last_used_at",
        "api_tokens.second_factor as second_factor",
        eb
          .selectFrom("site_settings")
          .select("site_settings.require_admin_second_factor")
          .where("site_settings.id", "=", sql.lit("site"))
          .where("users.is_admin", "=", sql.lit(1))
          .as("admin_rule"),
      ])
      .where("api_tokens.token_hash", "=", tokenHash)
      .where("users.suspended_at", "is", null),
  );
  if (!row) return undefined;
  const {
    token_id: tokenId,
    scope,
    last_used_at: lastUsedAt,
    second_factor: secondFactor,
    admin_rule: adminRule,
    ...user
  } = row;
  if (lastUsedAt === null || now.getTime() - Date.parse(lastUsedAt) >= LAST_SEEN_EVERY_MS) {
    // Not awaited, as a session's "last seen": the request does not wait for its bookkeeping.
    void db
      .updateTable("api_tokens")
      .set({ last_used_at: iso(now) })
      .where("id", "=", tokenId)
      .execute()
      .catch(() => undefined);
  }
  return { tokenId, scope, user: underAdminRule(user, adminRule, secondFactor) };
}
