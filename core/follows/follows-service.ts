import type { Kysely } from "kysely";
import { readingMessages } from "../../contract/reading.js";
import { compiledOnce } from "../../db/compiled-once.js";
import type { Database } from "../../db/schema.js";
import type { CoreDeps } from "../deps.js";
import { notify, withdrawNotification } from "../notifications/notifications-service.js";
import { iso } from "../shared/clock.js";
import { changingContent } from "../shared/content-changes.js";
import { invalid, notFound } from "../shared/errors.js";
import { isId } from "../shared/ids.js";
import type { Actor } from "../users/policies.js";

const userNotFound = "User not found";

/** The ids of the people `userId` follows, as a subquery (the feed's authors). */
export const followeesOf = (db: Kysely<Database>, userId: string) =>
  db.selectFrom("follows").select("follows.followee_id").where("follows.follower_id", "=", userId);

/** Whether `followerId` follows `followeeId`, as a subquery for `exists` (a page's reader state). */
export const followRow = (db: Kysely<Database>, followerId: string, followeeId: string) =>
  db
    .selectFrom("follows")
    .select("follows.followee_id")
    .where("follows.follower_id", "=", followerId)
    .where("follows.followee_id", "=", followeeId);

async function countFollowers(db: Kysely<Database>, userId: string) {
  const row = await db
    .selectFrom("follows")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .where("followee_id", "=", userId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

const followCounts = compiledOnce<Database>();

/** A profile's follower and following counts, and whether the viewer (if any) follows it. */
export async function followFacts(
  deps: Pick<CoreDeps, "db">,
  viewer: Actor | undefined,
  userId: string,
) {
  const viewerId = viewer?.id ?? "";
  const [counts] = await followCounts(
    deps.db,
    { parameters: [userId, userId, viewerId, userId] },
    () =>
      deps.db.selectNoFrom((eb) => [
        eb
          .selectFrom("follows")
          .select(eb.fn.countAll<number | string>().as("n"))
          .where("followee_id", "=", userId)
          .as("followers"),
        eb
          .selectFrom("follows")
          .select(eb.fn.countAll<number | string>().as("n"))
          .where("follower_id", "=", userId)
          .as("following"),
        eb
          .selectFrom("follows")
          .select(eb.fn.countAll<number | string>().as("n"))
          .where("follower_id", "=", viewerId)
          .where("followee_id", "=", userId)
          .as("followed"),
      ]),
  );
  return {
    followersCount: Number(counts?.followers ?? 0),
    followingCount: Number(counts?.following ?? 0),
    ...(viewer ? { followedByYou: Number(counts?.followed ?? 0) > 0 } : {}),
  };
}

/**
 * Follows or unfollows (`PUT /api/users/follow/:id`). As with likes, the (follower, followee)
 * primary key makes a second follow impossible: the insert is skipped on conflict, and only then
 * is the follow removed. The followee is told in the same transaction; an unfollow takes that
 * notification back while it is unread.
 */
export async function toggleFollow(deps: CoreDeps, actor: Actor, id: string) {
  if (id === actor.id) throw invalid(readingMessages.followSelf);
  const target = isId(id)
    ? await deps.db.selectFrom("users").select("id").where("id", "=", id).executeTakeFirst()
    : undefined;
  if (!target) throw notFound(userNotFound);
  const event = { kind: "follow" as const, recipientId: target.id };
  // Follower counts show on profiles: kept renders of them must go.
  return changingContent(deps, () =>
    deps.db.transaction().execute(async (trx) => {
      const inserted = await trx
        .insertInto("follows")
        .values({ follower_id: actor.id, followee_id: target.id, created_at: iso(deps.clock()) })
        .onConflict((oc) => oc.columns(["follower_id", "followee_id"]).doNothing())
        .executeTakeFirst();
      const following = (inserted.numInsertedOrUpdatedRows ?? 0n) > 0n;
      if (following) {
        await notify(trx, deps, actor, event);
      } else {
        await trx
          .deleteFrom("follows")
          .where("follower_id", "=", actor.id)
          .where("followee_id", "=", target.id)
          .execute();
        await withdrawNotification(trx, actor, event);
      }
      return { following, followersCount: await countFollowers(trx, target.id) };
    }),
  ).catch(async (error: unknown) => {
    // The account was deleted between the check and the insert (its foreign key refused it).
    if (!(await deps.db.selectFrom("users").select("id").where("id", "=", id).executeTakeFirst())) {
      throw notFound(userNotFound);
    }
    throw error;
  });
}
