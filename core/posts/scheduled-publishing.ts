import { sql, type ExpressionBuilder } from "kysely";
import type { Database } from "../../db/schema.js";
import type { CoreDeps } from "../deps.js";
import { recordEvent } from "../events/events.js";
import { iso } from "../shared/clock.js";
import { changingContent } from "../shared/content-changes.js";

/**
 * A suspended author's scheduled posts wait (decision 013): they are neither published nor waited
 * for, and go out at the first check after the suspension is lifted.
 */
const authorActive = (eb: ExpressionBuilder<Database, "posts">) =>
  eb.not(
    eb.exists(
      eb
        .selectFrom("users")
        .select("users.id")
        .whereRef("users.id", "=", "posts.user_id")
        .where("users.suspended_at", "is not", null),
    ),
  );

/**
 * Publishes every scheduled post whose time has come, and returns their ids. One conditional
 * update claims them: a row still `scheduled` is switched, and a second instance running the same
 * statement at the same moment finds it `published` (PostgreSQL re-reads a row it waited for;
 * SQLite runs one write at a time), so each post goes live exactly once (decision 011).
 */
export async function publishDuePosts(deps: CoreDeps) {
  const now = iso(deps.clock());
  const due = await deps.db
    .selectFrom("posts")
    .select("id")
    .where("status", "=", "scheduled")
    .where("publish_at", "<=", now)
    .where(authorActive)
    .limit(1)
    .executeTakeFirst();
  // Most checks find nothing due: they stay reads, with no write lock taken on SQLite.
  if (!due) return [];
  const claimed = await changingContent(deps, () =>
    deps.db.transaction().execute(async (trx) => {
      const published = await trx
        .updateTable("posts")
        .set({
          status: "published",
          published_at: sql<string>`coalesce(published_at, publish_at)`,
          publish_at: null,
        })
        .where("status", "=", "scheduled")
        .where("publish_at", "<=", now)
        .where(authorActive)
        .returning("id")
        .execute();
      // Each went out once (claimed by one instance): its event is recorded once.
      for (const { id } of published) {
        await recordEvent(trx, deps, { type: "post.published", postId: id });
      }
      return published;
    }),
  );
  return claimed.map((row) => row.id);
}

/** When the next scheduled post is due, if any is (read in the order of its index). */
export async function nextPublishTime(deps: Pick<CoreDeps, "db">) {
  const row = await deps.db
    .selectFrom("posts")
    .select("publish_at")
    .where("status", "=", "scheduled")
    .where("publish_at", "is not", null)
    .where(authorActive)
    .orderBy("publish_at")
    .limit(1)
    .executeTakeFirst();
  return row?.publish_at ? new Date(row.publish_at) : undefined;
}
