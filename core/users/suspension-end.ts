import type { CoreDeps } from "../deps.js";
import { iso } from "../shared/clock.js";

// Apart from suspension.ts, which needs the users' service: sign-in (core/auth) calls this.

/**
 * Lifts the suspensions whose end has come (all of them, or `userId`'s only), as an admin's
 * restore would, but logged as nobody's action. Answers how many were lifted.
 */
export async function liftEndedSuspensions(deps: CoreDeps, userId?: string) {
  const now = iso(deps.clock());
  let query = deps.db
    .updateTable("users")
    .set({ suspended_at: null, suspension_reason: null, suspended_until: null, updated_at: now })
    .where("suspended_at", "is not", null)
    .where("suspended_until", "is not", null)
    .where("suspended_until", "<=", now);
  if (userId !== undefined) query = query.where("id", "=", userId);
  const result = await query.executeTakeFirst();
  const lifted = Number(result.numUpdatedRows);
  if (lifted > 0) deps.postScheduled?.(deps.clock());
  return lifted;
}
