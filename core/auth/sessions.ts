import { sql, type Kysely, type Transaction } from "kysely";
import { compiledOnce } from "../../db/compiled-once.js";
import type { Database, UsersTable } from "../../db/schema.js";
import { addMs, DAY_MS, iso } from "../shared/clock.js";
import { newId } from "../shared/ids.js";
import { notFound } from "../shared/errors.js";
import { securityMessages } from "../../contract/account-security.js";
import { deviceOf, UNKNOWN_DEVICE } from "./device-names.js";
import { hashToken, randomToken } from "./tokens.js";

export const SESSION_TTL_MS = 30 * DAY_MS;

/**
 * A sign-in this recent stands in for the current password (a client signs in, then changes it)
 * and may add a second factor (decision 024).
 */
export const RECENT_SIGN_IN_MS = 15 * 60_000;

/**
 * The session making a change to its account: which one, when it signed in (ISO time), and
 * whether it signed in with (or has since proven) a second factor.
 */
export interface ChangingSession {
  sessionId: string;
  signedInAt: string;
  secondFactor: boolean;
}

export const signedInRecently = (now: Date, session: ChangingSession) =>
  now.getTime() - Date.parse(session.signedInAt) < RECENT_SIGN_IN_MS;

/** A session's "last seen" is written again only when it is older than this. */
export const LAST_SEEN_EVERY_MS = 5 * 60_000;

export interface SessionUser {
  sessionId: string;
  /** When this session signed in (ISO time): a recent sign-in stands in for the password. */
  signedInAt: string;
  /** Whether this session was opened with (or has since proven) a second factor. */
  secondFactor: boolean;
  /**
   * The account's row; `is_admin` is 0 for an admin's session held to the site's rule (opened
   * without a second factor while admins need one, decision 024): it acts as a member.
   */
  user: UsersTable;
}

/**
 * A new session; `userAgent` only names the device in the sessions list ("Firefox on Linux"; the
 * agent itself is not kept), and `secondFactor` says it was opened with more than a password.
 */
export async function createSession(
  db: Kysely<Database>,
  userId: string,
  now: Date,
  userAgent?: string,
  secondFactor = false,
) {
  const token = randomToken();
  await db
    .insertInto("sessions")
    .values({
      id: newId(),
      user_id: userId,
      token_hash: hashToken(token),
      created_at: iso(now),
      expires_at: iso(addMs(now, SESSION_TTL_MS)),
      last_seen_at: iso(now),
      device: deviceOf(userAgent),
      second_factor: secondFactor ? 1 : 0,
    })
    .execute();
  return token;
}

/** Read on every signed-in request. */
const sessionUser = compiledOnce<Database>();

/**
 * The live session behind a bearer token, with its user read fresh (the admin flag included). A
 * suspended account has none: suspending ends its sessions, and this holds against any that raced.
 */
export async function findSessionUser(
  db: Kysely<Database>,
  token: string,
  now: Date,
): Promise<SessionUser | undefined> {
  const tokenHash = hashToken(token);
  const [row] = await sessionUser(db, { parameters: [tokenHash, iso(now)] }, () =>
    db
      .selectFrom("sessions")
      .innerJoin("users", "users.id", "sessions.user_id")
      .selectAll("users")
      .select((eb) => [
        "sessions.id as session_id",
        "sessions.created_at as signed_in_at",
        "sessions.last_seen_at as last_seen_at",
        "sessions.second_factor as second_factor",
        // Only an admin's rights depend on the site's rule: read for admins alone.
        eb
          .selectFrom("site_settings")
          .select("site_settings.require_admin_second_factor")
          .where("site_settings.id", "=", sql.lit("site"))
          .where("users.is_admin", "=", sql.lit(1))
          .as("admin_rule"),
      ])
      .where("sessions.token_hash", "=", tokenHash)
      .where("sessions.expires_at", ">", iso(now))
      .where("users.suspended_at", "is", null),
  );
  if (!row) return undefined;
  const {
    session_id: sessionId,
    signed_in_at: signedInAt,
    last_seen_at: lastSeenAt,
    admin_rule: adminRule,
    second_factor: secondFactor,
    ...user
  } = row;
  if (lastSeenAt === null || now.getTime() - Date.parse(lastSeenAt) >= LAST_SEEN_EVERY_MS) {
    // Not awaited: the request does not wait for its bookkeeping, and a failure only leaves it old.
    void db
      .updateTable("sessions")
      .set({ last_seen_at: iso(now) })
      .where("id", "=", sessionId)
      .execute()
      .catch(() => undefined);
  }
  return {
    sessionId,
    signedInAt,
    secondFactor: secondFactor === 1,
    user: underAdminRule(user, adminRule, secondFactor),
  };
}

/**
 * The account as a session or API token may act on it: an admin held to the site's second-factor
 * rule (`adminRule` 1) acts as a member unless the session (or the session that made the token)
 * proved a second factor; merely belonging to an account that has one is not enough, else a
 * stolen password would still open an admin's session.
 */
export function underAdminRule(user: UsersTable, adminRule: unknown, secondFactor: number) {
  const held = user.is_admin === 1 && Number(adminRule) === 1 && secondFactor !== 1;
  return held ? { ...user, is_admin: 0 } : user;
}

export async function revokeSession(db: Kysely<Database>, sessionId: string) {
  await db.deleteFrom("sessions").where("id", "=", sessionId).execute();
}

/** Ends every session of a user but, optionally, the one making the change. */
export async function revokeUserSessions(
  db: Kysely<Database>,
  userId: string,
  keepSessionId?: string,
) {
  let query = db.deleteFrom("sessions").where("user_id", "=", userId);
  if (keepSessionId) query = query.where("id", "!=", keepSessionId);
  await query.execute();
}

/** The account's live sessions (DESIGN.md 10, "Sessions"), the one asking marked, latest used first. */
export async function listSessions(
  deps: { db: Kysely<Database>; clock: () => Date },
  userId: string,
  currentSessionId: string,
) {
  const rows = await deps.db
    .selectFrom("sessions")
    .select(["id", "created_at", "last_seen_at", "device"])
    .where("user_id", "=", userId)
    .where("expires_at", ">", iso(deps.clock()))
    .execute();
  return rows
    .map((row) => ({
      _id: row.id,
      createdAt: row.created_at,
      lastSeenAt: row.last_seen_at ?? row.created_at,
      device: row.device ?? UNKNOWN_DEVICE,
      current: row.id === currentSessionId,
    }))
    .sort(
      (a, b) => Number(b.current) - Number(a.current) || b.lastSeenAt.localeCompare(a.lastSeenAt),
    );
}

/** Marks a session as opened with a second factor: its owner has just proven one in it. */
export async function markSecondFactor(
  db: Kysely<Database> | Transaction<Database>,
  sessionId: string,
) {
  await db.updateTable("sessions").set({ second_factor: 1 }).where("id", "=", sessionId).execute();
}

/** Signs one of the account's sessions out; 404 for an id that is not one of them. */
export async function endSession(db: Kysely<Database>, userId: string, sessionId: string) {
  const result = await db
    .deleteFrom("sessions")
    .where("id", "=", sessionId)
    .where("user_id", "=", userId)
    .executeTakeFirst();
  if (result.numDeletedRows !== 1n) throw notFound(securityMessages.sessionNotFound);
}
