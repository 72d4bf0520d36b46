import { sql } from "kysely";
import type { CoreDeps } from "../deps.js";
import { DAY_MS, HOUR_MS, iso } from "../shared/clock.js";
import { tooManyAttempts } from "../shared/errors.js";
import type { Actor } from "../users/policies.js";

/**
 * What an account may write per hour during its first day (decision 013): fewer than the regular
 * per-address limits allow, so a fresh sign-up cannot flood the site before anyone looks.
 */
export const NEW_ACCOUNT_LIMITS = { posts: 3, comments: 10 } as const;

export const NEW_ACCOUNT_MS = DAY_MS;

const messages = {
  posts: `New accounts may publish ${String(NEW_ACCOUNT_LIMITS.posts)} posts an hour, please try again later`,
  comments: `New accounts may write ${String(NEW_ACCOUNT_LIMITS.comments)} comments an hour, please try again later`,
} as const;

/**
 * Throws 429 when an account in its first day has written its hourly allowance of posts or
 * comments: posts put out (published, or scheduled, in the last hour), not drafts; call it for a
 * write that puts a post out. Off with `NEW_ACCOUNT_LIMITS=off` (test suites that write a lot with fresh accounts).
 */
export async function checkNewAccountBrake(
  deps: CoreDeps,
  actor: Actor,
  kind: "posts" | "comments",
  /** The post being put out, not counted again (a scheduled one published now). */
  except?: string,
) {
  if (!deps.newAccountBrakes || actor.isAdmin) return;
  const now = deps.clock().getTime();
  const account = await deps.db
    .selectFrom("users")
    .select("created_at")
    .where("id", "=", actor.id)
    .executeTakeFirst();
  if (!account || now - Date.parse(account.created_at) >= NEW_ACCOUNT_MS) return;
  const since = iso(new Date(now - HOUR_MS));
  const until = iso(new Date(now + HOUR_MS));
  // Posts count once they are out (published, or to be at a time set): a draft is nobody's to read.
  const recent =
    kind === "posts"
      ? await deps.db
          .selectFrom("posts")
          .select(
            sql<string>`case when status = 'published' then published_at else updated_at end`.as(
              "at",
            ),
          )
          .where("user_id", "=", actor.id)
          .where("id", "!=", except ?? "")
          .where((eb) =>
            eb.or([
              eb.and([eb("status", "=", "published"), eb("published_at", ">", since)]),
              // Scheduled within the hour, or going out within the next: many set for one minute
              // count as they would once out.
              eb.and([
                eb("status", "=", "scheduled"),
                eb.or([eb("updated_at", ">", since), eb("publish_at", "<", until)]),
              ]),
            ]),
          )
          .orderBy("at")
          .execute()
      : await deps.db
          .selectFrom("comments")
          .select("created_at as at")
          .where("user_id", "=", actor.id)
          .where("created_at", ">", since)
          .orderBy("created_at")
          .execute();
  const [oldest] = recent;
  if (oldest && recent.length >= NEW_ACCOUNT_LIMITS[kind]) {
    const retryAfter = Math.max(1, Math.ceil((Date.parse(oldest.at) + HOUR_MS - now) / 1000));
    throw tooManyAttempts(messages[kind], retryAfter);
  }
}
