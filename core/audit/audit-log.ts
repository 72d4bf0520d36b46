import type { Kysely } from "kysely";
import type { AuditAction, AuditLogTable, Database } from "../../db/schema.js";
import type { CoreDeps } from "../deps.js";
import { iso } from "../shared/clock.js";
import { newId } from "../shared/ids.js";
import { assertAdmin, type Actor } from "../users/policies.js";
import { pageOf } from "../posts/queries.js";

/** What an entry is about, named as it was at the time. */
export interface AuditTarget {
  kind: AuditLogTable["target_kind"];
  id: string;
  summary: string;
}

/** How long a summary of a target may be (a comment's first words). */
const SUMMARY_MAX = 120;

export const summaryOf = (text: string) =>
  text.length > SUMMARY_MAX ? `${text.slice(0, SUMMARY_MAX - 1)}…` : text;

/**
 * Records an admin action. Called with the action's own transaction, so the action and its entry
 * are written together or not at all. Nothing updates or deletes the log.
 */
export async function recordAudit(
  trx: Kysely<Database>,
  deps: Pick<CoreDeps, "clock">,
  actor: Actor,
  action: AuditAction,
  target: AuditTarget,
) {
  const admin = await trx
    .selectFrom("users")
    .select("username")
    .where("id", "=", actor.id)
    .executeTakeFirst();
  await trx
    .insertInto("audit_log")
    .values({
      id: newId(),
      actor_id: actor.id,
      actor_name: admin?.username ?? "",
      action,
      target_kind: target.kind,
      target_id: target.id,
      target_summary: summaryOf(target.summary),
      created_at: iso(deps.clock()),
    })
    .execute();
}

export function presentAuditEntry(row: AuditLogTable) {
  return {
    _id: row.id,
    actor: { _id: row.actor_id, username: row.actor_name },
    action: row.action,
    target: { kind: row.target_kind, _id: row.target_id, summary: row.target_summary },
    createdAt: row.created_at,
  };
}

export type PresentedAuditEntry = ReturnType<typeof presentAuditEntry>;

/** One page of the log, newest first (admins only). */
export async function listAudit(deps: CoreDeps, actor: Actor, pageNumber = 1) {
  assertAdmin(actor);
  const { limit, offset } = pageOf(pageNumber);
  const rows = await deps.db
    .selectFrom("audit_log")
    .selectAll()
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(limit)
    .offset(offset)
    .execute();
  return rows.map(presentAuditEntry);
}

/** How many entries the log holds (for the dashboard's pager). */
export async function countAudit(deps: CoreDeps, actor: Actor) {
  assertAdmin(actor);
  const row = await deps.db
    .selectFrom("audit_log")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
