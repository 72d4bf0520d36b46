import { sql } from "kysely";
import type { CoreDeps } from "../deps.js";

/**
 * How many addresses a writer's next post would be mailed to (decision 028): the active
 * subscribers of the site and of the writer, an address subscribed to both counted once.
 */
export async function newsletterAudience(deps: Pick<CoreDeps, "db">, authorId: string) {
  const row = await deps.db
    .selectFrom("subscriptions")
    .select(sql<number | string>`count(distinct email)`.as("n"))
    .where("status", "=", "active")
    .where((where) =>
      where.or([where("scope_key", "=", "site"), where("scope_key", "=", authorId)]),
    )
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * What a post's publish controls say (decision 028), in one statement: how many addresses it would
 * go to now, and when it was mailed, if it was (it never goes again).
 */
export async function newsletterOffer(
  deps: Pick<CoreDeps, "db">,
  post: { id: string; user_id: string },
) {
  const row = await deps.db
    .selectNoFrom((eb) => [
      eb
        .selectFrom("subscriptions")
        .select(sql<number | string>`count(distinct email)`.as("n"))
        .where("status", "=", "active")
        .where((where) =>
          where.or([where("scope_key", "=", "site"), where("scope_key", "=", post.user_id)]),
        )
        .as("audience"),
      eb
        .selectFrom("newsletter_sends")
        .select("started_at")
        .where("post_id", "=", post.id)
        .as("sent_at"),
    ])
    .executeTakeFirstOrThrow();
  return { audience: Number(row.audience ?? 0), sentAt: row.sent_at };
}
