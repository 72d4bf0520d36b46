import { SuspendSchema, moderationMessages } from "../../contract/moderation.js";
import type { Kysely } from "kysely";
import type { Database, UsersTable } from "../../db/schema.js";
import { revokeUserSessions } from "../auth/sessions.js";
import { recordAudit } from "../audit/audit-log.js";
import { suspensionMail } from "../mail/templates.js";
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
  const { suspended, ...terms } = validate(SuspendSchema, body);
  const change = suspended ? checkedTerms(deps, terms) : false;
  await deps.db.transaction().execute((trx) => setSuspendedIn(trx, deps, actor, user, change));
  if (change) await tellSuspended(deps, user.id, change);
  // Scheduled posts held by the suspension whose time has passed go out now (decision 013).
  else deps.postScheduled?.(deps.clock());
  return {
    _id: user.id,
    suspended,
    message: suspended ? suspensionMessages.suspended : suspensionMessages.restored,
  };
}

/** A suspension's terms as stored: the reason the member is shown, and when it lifts by itself. */
export interface SuspensionTerms {
  reason?: string | undefined;
  until?: Date | undefined;
}

/** Throws 400 unless the end, when given, is still to come (and within years of four digits). */
export function checkedTerms(deps: Pick<CoreDeps, "clock">, terms: SuspensionTerms) {
  if (terms.until && terms.until.getTime() <= deps.clock().getTime()) {
    throw invalid(moderationMessages.untilPast, { until: moderationMessages.untilPast });
  }
  // Stored as ISO text and compared as text: a year past 9999 would sort before today.
  if (terms.until && terms.until.getUTCFullYear() > 9999) {
    throw invalid(moderationMessages.untilInvalid, { until: moderationMessages.untilInvalid });
  }
  return terms;
}

/**
 * Mails the member that they are suspended, why, until when and how to answer (the site's contact
 * address when an admin has set one). Only to an address the account has verified, as all mail
 * about an account: nobody else learns of it. A mail that fails is logged: the suspension stands.
 */
export async function tellSuspended(deps: CoreDeps, userId: string, terms: SuspensionTerms) {
  const user = await deps.db
    .selectFrom("users")
    .select(["email", "username", "email_key", "verified_email_key", "is_verified"])
    .where("id", "=", userId)
    .executeTakeFirst();
  if (!user || user.is_verified !== 1 || user.verified_email_key !== user.email_key) return;
  const settings = await deps.db
    .selectFrom("site_settings")
    .select("contact_email")
    .executeTakeFirst();
  await deps.mailer
    .send(
      suspensionMail(user.email, user.username, deps.site.title, {
        reason: terms.reason,
        until: terms.until ? iso(terms.until) : undefined,
        contact: settings?.contact_email,
        link: `${deps.site.mailLinkUrl}/login`,
      }),
    )
    .catch((error: unknown) => {
      deps.log.warn({ err: error }, "the suspension mail was not sent");
    });
}

/**
 * Suspends `user` on `terms` (or restores them, `false`) in the caller's transaction (the caller
 * has checked the actor is an admin and not `user`): the last active admin stays, a suspension
 * ends the sessions, and it is logged, unless the caller logs it as something else (a report's
 * decision: one action, one entry).
 */
export async function setSuspendedIn(
  trx: Kysely<Database>,
  deps: Pick<CoreDeps, "clock">,
  actor: Actor,
  user: Pick<UsersTable, "id" | "username" | "is_admin">,
  terms: SuspensionTerms | false,
  options: { audit: boolean } = { audit: true },
) {
  if (terms && user.is_admin === 1) await assertAnotherActiveAdmin(trx, user.id);
  const now = iso(deps.clock());
  await trx
    .updateTable("users")
    .set({
      suspended_at: terms ? now : null,
      suspension_reason: terms ? (terms.reason ?? null) : null,
      suspended_until: terms && terms.until ? iso(terms.until) : null,
      updated_at: now,
    })
    .where("id", "=", user.id)
    .execute();
  if (terms) await revokeUserSessions(trx, user.id);
  if (!options.audit) return;
  await recordAudit(trx, deps, actor, terms ? "user.suspend" : "user.restore", {
    kind: "user",
    id: user.id,
    summary: user.username,
  });
}
