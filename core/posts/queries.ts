import type { Kysely } from "kysely";
import { PAGE_SIZE } from "../../contract/limits.js";
import type { Database } from "../../db/schema.js";

/**
 * The columns of a post that every list carries: all but its rendered HTML, which only the post
 * itself shows (a list of 20,000-character posts would carry ~70 KB of HTML for each).
 */
export const POST_COLUMNS = [
  "posts.id",
  "posts.user_id",
  "posts.title",
  "posts.description",
  "posts.category",
  "posts.image_key",
  "posts.body_format",
  "posts.excerpt",
  "posts.reading_minutes",
  "posts.created_at",
  "posts.updated_at",
] as const;

/**
 * Posts with their author and counts, newest first, in one statement: the counts are correlated
 * subqueries over the likes and comments indexes, so a page costs one query whatever its size.
 */
export function selectPostSummaries(db: Kysely<Database>) {
  return db
    .selectFrom("posts")
    .innerJoin("users", "users.id", "posts.user_id")
    .select(POST_COLUMNS)
    .select(["users.username as author_username", "users.photo_key as author_photo_key"])
    .select((eb) => [
      eb
        .selectFrom("likes")
        .select(eb.fn.countAll<number | string>().as("n"))
        .whereRef("likes.post_id", "=", "posts.id")
        .as("likes_count"),
      eb
        .selectFrom("comments")
        .select(eb.fn.countAll<number | string>().as("n"))
        .whereRef("comments.post_id", "=", "posts.id")
        .as("comments_count"),
    ])
    .orderBy("posts.created_at", "desc")
    .orderBy("posts.id", "desc");
}

export type PostSummaryRow = Awaited<
  ReturnType<ReturnType<typeof selectPostSummaries>["executeTakeFirstOrThrow"]>
>;

/** Page n (from 1) of a newest-first list. */
export const pageOf = (pageNumber: number, pageSize = PAGE_SIZE) => ({
  limit: pageSize,
  offset: (pageNumber - 1) * pageSize,
});
