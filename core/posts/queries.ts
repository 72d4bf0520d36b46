import { sql, type ExpressionBuilder, type Kysely, type SelectQueryBuilder } from "kysely";
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
  "posts.image_alt",
  "posts.body_format",
  "posts.excerpt",
  "posts.reading_minutes",
  "posts.status",
  "posts.publish_at",
  "posts.published_at",
  "posts.created_at",
  "posts.updated_at",
  "posts.tags",
  "posts.meta_description",
  "posts.canonical_url",
  "posts.newsletter",
  "posts.series_id",
] as const;

/**
 * How each kind of list is ordered (decision 011): public lists by first publication, newest
 * first; an author's drafts by their last change; their scheduled posts soonest first; the admin
 * table, which shows every post whatever its state, by creation.
 */
export const POST_ORDERS = {
  published: [
    ["posts.published_at", "desc"],
    ["posts.id", "desc"],
  ],
  draft: [
    ["posts.updated_at", "desc"],
    ["posts.id", "desc"],
  ],
  scheduled: [
    ["posts.publish_at", "asc"],
    ["posts.id", "asc"],
  ],
  any: [
    ["posts.created_at", "desc"],
    ["posts.id", "desc"],
  ],
} as const satisfies Record<string, readonly (readonly [PostOrderColumn, "asc" | "desc"])[]>;

type PostOrderColumn =
  `posts.${"published_at" | "updated_at" | "publish_at" | "created_at" | "id"}`;

/** Which posts a list shows: one state (`published` for anything public) or `any` (admins). */
export type PostListStatus = keyof typeof POST_ORDERS;

/** Orders a query on `posts` as a list of `status` is ordered. */
export function orderedAs<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  status: PostListStatus,
) {
  let ordered = query;
  for (const [column, direction] of POST_ORDERS[status]) {
    ordered = ordered.orderBy(sql.ref(column), direction);
  }
  return ordered;
}

/**
 * Posts with their author and counts in one statement: the counts are correlated subqueries over
 * the likes and comments indexes, so a page costs one query whatever its size. A post in a series
 * brings its series' title and its place as readers see it (decision 032): counted among the
 * series' published posts and itself (a draft shows where it will stand once out), through the
 * series index; a post in none finds nothing there.
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
      eb
        .selectFrom("series")
        .select("series.title")
        .whereRef("series.id", "=", "posts.series_id")
        .as("series_title"),
      seriesShown(eb)
        .where((shown) =>
          shown.or([
            shown("shown.series_position", "<", shown.ref("posts.series_position")),
            shown.and([
              shown("shown.series_position", "=", shown.ref("posts.series_position")),
              shown("shown.id", "<=", shown.ref("posts.id")),
            ]),
          ]),
        )
        .as("series_position"),
      seriesShown(eb).as("series_total"),
    ]);
}

/** The posts of the listed post's series a reader sees, counted: the published ones and itself. */
const seriesShown = (eb: ExpressionBuilder<Database, "posts">) =>
  eb
    .selectFrom("posts as shown")
    .select((inner) => inner.fn.countAll<number | string>().as("n"))
    .whereRef("shown.series_id", "=", "posts.series_id")
    .where((inner) =>
      inner.or([
        // A literal, not a parameter: the reads compiled once bind only their own values.
        inner("shown.status", "=", sql.lit("published")),
        inner("shown.id", "=", inner.ref("posts.id")),
      ]),
    );

export type PostSummaryRow = Awaited<
  ReturnType<ReturnType<typeof selectPostSummaries>["executeTakeFirstOrThrow"]>
>;

/** Page n (from 1) of a newest-first list. */
export const pageOf = (pageNumber: number, pageSize = PAGE_SIZE) => ({
  limit: pageSize,
  offset: (pageNumber - 1) * pageSize,
});
