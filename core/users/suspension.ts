import { SuspendSchema } from "../../contract/moderation.js";
import type { Kysely } from "kysely";
import type { Database, UsersTable } from "../../db/schema.js";
import { revokeUserSessions } from "../auth/sessions.js";
import { recordAudit } from "../audit/audit-log.js";
import type { CoreDeps } from "../deps.js";
import { iso } from "../shared/clock.js";
import { conflict, invalid, notFound } from "../shared/errors.js";
import { validate } from "../shared/validate.js";
import { assertAdmin, type Actor } from "./policies.js";
import { findUser, userMessages } from "./users-service.js";

export const suspensionMessages = {
  self: "You cannot suspend your own account",
  lastAdmin: "The last admin account cannot be suspended",
  suspended: "User has been suspended",
  restored: "User has been restored",
} as const;

/**
 * Throws 409 unless an admin other than `userId` stays active. The admin rows are locked first (a
 * no-op update works on both engines), so two admins suspending each other at once are counted
 * one after the other and one of them is refused.
 */
async function assertAnotherActiveAdmin(trx: Kysely<Database>, userId: string) {
  await trx
    .updateTable("users")
    .set((eb) => ({ is_admin: eb.ref("is_admin") }))
    .where("is_admin", "=", 1)
    .execute();
  const others = await trx
    .selectFrom("users")
    .select((eb) => eb.fn.countAll<number | string>().as("count"))
    .where("is_admin", "=", 1)
    .where("suspended_at", "is", null)
    .where("id", "!=", userId)
    .executeTakeFirstOrThrow();
  if (Number(others.count) === 0) throw conflict(suspensionMessages.lastAdmin);
}

/**
 * Suspends or restores an account (admins only; not their own, not the last active admin). A
 * suspended account's sessions end in the same transaction, and it cannot sign in again until
 * restored; what it wrote stays, and what it had queued waits (scheduled posts) or is dropped
 * (conversation mail) while it is suspended.
 */
export async function setSuspended(deps: CoreDeps, actor: Actor, id: string, body: unknown) {
  assertAdmin(actor);
  const user = await findUser(deps, id);
  if (!user) throw notFound(userMessages.notFound);
  if (user.id === actor.id) throw invalid(suspensionMessages.self);
  const { suspended } = validate(SuspendSchema, body);
  await deps.db.transaction().execute((trx) => setSuspendedIn(trx, deps, actor, user, suspended));
  // Scheduled posts held by the suspension whose time has passed go out now (decision 013).
  if (!suspended) deps.postScheduled?.(deps.clock());
  return {
    _id: user.id,
    suspended,
    message: suspended ? suspensionMessages.suspended : suspensionMessages.restored,
  };
}

/**
 * Suspends or restores `user` in the caller's transaction (the caller has checked the actor is an
 * admin and not `user`): the last active admin stays, a suspension ends the sessions, and it is
 * logged.
 */
export async function setSuspendedIn(
  trx: Kysely<Database>,
  deps: Pick<CoreDeps, "clock">,
  actor: Actor,
  user: Pick<UsersTable, "id" | "username" | "is_admin">,
  suspended: boolean,
) {
  if (suspended && user.is_admin === 1) await assertAnotherActiveAdmin(trx, user.id);
  const now = iso(deps.clock());
  await trx
    .updateTable("users")
    .set({ suspended_at: suspended ? now : null, updated_at: now })
    .where("id", "=", user.id)
    .execute();
  if (suspended) await revokeUserSessions(trx, user.id);
  await recordAudit(trx, deps, actor, suspended ? "user.suspend" : "user.restore", {
    kind: "user",
    id: user.id,
    summary: user.username,
  });
}
