import type { Kysely } from "kysely";
import { compiledOnce } from "../../db/compiled-once.js";
import type { Database, UsersTable } from "../../db/schema.js";
import { addMs, DAY_MS, iso } from "../shared/clock.js";
import { newId } from "../shared/ids.js";
import { hashToken, randomToken } from "./tokens.js";

export const SESSION_TTL_MS = 30 * DAY_MS;

export interface SessionUser {
  sessionId: string;
  /** When this session signed in (ISO time): a recent sign-in stands in for the password. */
  signedInAt: string;
  user: UsersTable;
}

export async function createSession(db: Kysely<Database>, userId: string, now: Date) {
  const token = randomToken();
  await db
    .insertInto("sessions")
    .values({
      id: newId(),
      user_id: userId,
      token_hash: hashToken(token),
      created_at: iso(now),
      expires_at: iso(addMs(now, SESSION_TTL_MS)),
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
      .select(["sessions.id as session_id", "sessions.created_at as signed_in_at"])
      .where("sessions.token_hash", "=", tokenHash)
      .where("sessions.expires_at", ">", iso(now))
      .where("users.suspended_at", "is", null),
  );
  if (!row) return undefined;
  const { session_id: sessionId, signed_in_at: signedInAt, ...user } = row;
  return { sessionId, signedInAt, user };
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
