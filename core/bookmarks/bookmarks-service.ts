import { compiledOnce } from "../../db/compiled-once.js";
import type { Database } from "../../db/schema.js";
import type { CoreDeps } from "../deps.js";
import { followRow } from "../follows/follows-service.js";
import { postMessages } from "../posts/posts-service.js";
import { presentPostSummary } from "../posts/presenters.js";
import { pageOf, selectPostSummaries } from "../posts/queries.js";
import { iso } from "../shared/clock.js";
import { notFound } from "../shared/errors.js";
import { isId } from "../shared/ids.js";
import type { Actor } from "../users/policies.js";

/** A published post's id, or a 404: drafts, scheduled and missing posts cannot be saved. */
async function requirePublishedPost(deps: Pick<CoreDeps, "db">, id: string) {
  const post = isId(id)
    ? await deps.db
        .selectFrom("posts")
        .select("id")
        .where("id", "=", id)
        .where("status", "=", "published")
        .executeTakeFirst()
    : undefined;
  if (!post) throw notFound(postMessages.notFound);
  return post;
}

/**
 * Saves a post to the actor's reading list, or takes it off (`PUT /api/posts/bookmark/:id`): the
 * (user, post) primary key makes a second save impossible, as with likes. Private to the reader,
 * so no kept page changes.
 */
export async function toggleBookmark(deps: CoreDeps, actor: Actor, id: string) {
  const post = await requirePublishedPost(deps, id);
  const inserted = await deps.db
    .insertInto("bookmarks")
    .values({ user_id: actor.id, post_id: post.id, created_at: iso(deps.clock()) })
    .onConflict((oc) => oc.columns(["user_id", "post_id"]).doNothing())
    .executeTakeFirst()
    .catch(async (error: unknown) => {
      // Deleted between the check and the insert (its foreign key refused the row).
      await requirePublishedPost(deps, post.id);
      throw error;
    });
  const bookmarked = (inserted.numInsertedOrUpdatedRows ?? 0n) > 0n;
  if (!bookmarked) {
    await deps.db
      .deleteFrom("bookmarks")
      .where("user_id", "=", actor.id)
      .where("post_id", "=", post.id)
      .execute();
  }
  return { bookmarked };
}

/**
 * The actor's saved posts, most recently saved first (`GET /api/users/me/bookmarks`). Only
 * published ones show: a saved post its author moved back to drafts comes back when republished.
 */
export async function listBookmarks(deps: CoreDeps, actor: Actor, pageNumber = 1) {
  const { limit, offset } = pageOf(pageNumber);
  const rows = await selectPostSummaries(deps.db)
    .innerJoin("bookmarks", "bookmarks.post_id", "posts.id")
    .where("bookmarks.user_id", "=", actor.id)
    .where("posts.status", "=", "published")
    .orderBy("bookmarks.created_at", "desc")
    .orderBy("posts.id", "desc")
    .limit(limit)
    .offset(offset)
    .execute();
  return rows.map((row) => presentPostSummary(deps, row));
}

/** How many published posts the actor has saved (the reading list's pages). */
export async function countBookmarks(deps: Pick<CoreDeps, "db">, actor: Actor) {
  const row = await deps.db
    .selectFrom("bookmarks")
    .innerJoin("posts", "posts.id", "bookmarks.post_id")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .where("bookmarks.user_id", "=", actor.id)
    .where("posts.status", "=", "published")
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Read on every signed-in page of posts, compiled once per count of posts. */
const savedOfPosts = compiledOnce<Database>();

/** Which of `postIds` the viewer has saved (the cards' and the post page's saved state). */
export async function savedAmong(
  deps: Pick<CoreDeps, "db">,
  viewer: Actor | undefined,
  postIds: string[],
) {
  if (!viewer || postIds.length === 0) return [];
  const bound = { shape: String(postIds.length), parameters: [viewer.id, ...postIds] };
  const rows = await savedOfPosts(deps.db, bound, () =>
    deps.db
      .selectFrom("bookmarks")
      .select("post_id")
      .where("user_id", "=", viewer.id)
      .where("post_id", "in", postIds),
  );
  return rows.map((row) => row.post_id);
}

const readerState = compiledOnce<Database>();

/**
 * A signed-in reader's state on a post page, in one statement: whether they saved the post and
 * whether they follow its author.
 */
export async function readerStateOfPost(
  deps: Pick<CoreDeps, "db">,
  viewer: Actor,
  post: { id: string; authorId: string },
) {
  const bound = { parameters: [viewer.id, post.id, viewer.id, post.authorId] };
  const [row] = await readerState(deps.db, bound, () =>
    deps.db.selectNoFrom((eb) => [
      eb
        .exists(
          deps.db
            .selectFrom("bookmarks")
            .select("bookmarks.post_id")
            .where("bookmarks.user_id", "=", viewer.id)
            .where("bookmarks.post_id", "=", post.id),
        )
        .as("saved"),
      eb.exists(followRow(deps.db, viewer.id, post.authorId)).as("following"),
    ]),
  );
  // SQLite answers 1/0, PostgreSQL true/false.
  return { saved: Boolean(row?.saved), following: Boolean(row?.following) };
}
