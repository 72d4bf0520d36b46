import { sql } from "kysely";
import type { CoreDeps } from "../deps.js";
import { iso } from "../shared/clock.js";
import { changingContent } from "../shared/content-changes.js";

/**
 * Publishes every scheduled post whose time has come, and returns their ids. One conditional
 * update claims them: a row still `scheduled` is switched, and a second instance running the same
 * statement at the same moment finds it `published` (PostgreSQL re-reads a row it waited for;
 * SQLite runs one write at a time), so each post goes live exactly once (decision 011).
 */
export async function publishDuePosts(deps: Pick<CoreDeps, "db" | "clock" | "contentChanged">) {
  const now = iso(deps.clock());
  const due = await deps.db
    .selectFrom("posts")
    .select("id")
    .where("status", "=", "scheduled")
    .where("publish_at", "<=", now)
    .limit(1)
    .executeTakeFirst();
  // Most checks find nothing due: they stay reads, with no write lock taken on SQLite.
  if (!due) return [];
  const claimed = await changingContent(deps, () =>
    deps.db
      .updateTable("posts")
      .set({
        status: "published",
        published_at: sql<string>`coalesce(published_at, publish_at)`,
        publish_at: null,
      })
      .where("status", "=", "scheduled")
      .where("publish_at", "<=", now)
      .returning("id")
      .execute(),
  );
  return claimed.map((row) => row.id);
}

/** When the next scheduled post is due, if any is. */
export async function nextPublishTime(deps: Pick<CoreDeps, "db">) {
  const row = await deps.db
    .selectFrom("posts")
    .select((eb) => eb.fn.min("publish_at").as("next"))
    .where("status", "=", "scheduled")
    .executeTakeFirst();
  return row?.next ? new Date(row.next) : undefined;
}
