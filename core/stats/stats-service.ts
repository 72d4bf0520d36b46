import { sql, type ExpressionBuilder, type Kysely } from "kysely";
import {
  STATS_POSTS_MAX,
  STATS_REFERRERS_MAX,
  StatsQuerySchema,
  statsMessages as m,
  type StatsRange,
} from "../../contract/stats.js";
import type { Database } from "../../db/schema.js";
import type { CoreDeps } from "../deps.js";
import { subscriberNumbers } from "../newsletter/owners.js";
import { DAY_MS } from "../shared/clock.js";
import { csvLine } from "../shared/csv.js";
import { notFound } from "../shared/errors.js";
import { isId } from "../shared/ids.js";
import { validate } from "../shared/validate.js";
import { assertAdmin, type Actor } from "../users/policies.js";
import { dayOf } from "./view-counter.js";

/** Reads `?days=` (7, 30 or 90; 30 when left out): 400 otherwise. */
export const readStatsRange = (query: unknown): StatsRange =>
  validate(StatsQuerySchema, query).days;

/** The days of a range, oldest first, ending today (UTC). */
export function rangeDays(today: Date, days: StatsRange): string[] {
  return Array.from({ length: days }, (_, index) =>
    dayOf(new Date(today.getTime() - (days - 1 - index) * DAY_MS)),
  );
}

/** The first instant of a range, as stored times compare. */
const startOf = (days: string[]) => `${days[0] ?? ""}T00:00:00.000Z`;

type Counted = { day: string; views: number | string; visitors: number | string };

/** Each day of the range with its numbers (zeros where none). */
function fill<T extends object>(
  days: string[],
  rows: Map<string, T>,
  zero: T,
): (T & { date: string })[] {
  return days.map((date) => ({ date, ...zero, ...rows.get(date) }));
}

const num = (value: number | string | bigint | null | undefined) => Number(value ?? 0);

function viewsByDay(rows: Counted[]) {
  return new Map(
    rows.map((row) => [row.day, { views: num(row.views), visitors: num(row.visitors) }]),
  );
}

const total = (rows: { views: number; visitors: number }[]) => ({
  views: rows.reduce((sum, row) => sum + row.views, 0),
  visitors: rows.reduce((sum, row) => sum + row.visitors, 0),
});

/** Counts of a time column a day: `substr` of an ISO time is its UTC day on both engines. */
const dayOfColumn = (column: string) => sql<string>`substr(${sql.ref(column)}, 1, 10)`;

function byDay(rows: { day: string; count: number | string | bigint }[]) {
  return new Map(rows.map((row) => [row.day, num(row.count)]));
}

/** The rows of one kind, of a statement that counts several things a day (`kind` says which). */
const ofKind = <T extends { kind: string }>(rows: T[], kind: string) =>
  rows.filter((row) => row.kind === kind);

/** Whose numbers a ranking counts: one post's, one writer's posts', or ({}) every post's. */
type Scope = { postId?: string; authorId?: string };

const inScope = (eb: ExpressionBuilder<Database, "posts">, scope: Scope) =>
  eb.and([
    ...(scope.postId === undefined ? [] : [eb("posts.id", "=", scope.postId)]),
    ...(scope.authorId === undefined ? [] : [eb("posts.user_id", "=", scope.authorId)]),
  ]);

// Rankings read the posts first (a CROSS JOIN holds SQLite to that order; PostgreSQL plans it as
// the join it is): each post's rows of the range are then a range of the daily tables' primary
// key (post_id, day), as they have no index on the day alone. A writer's posts are found by their
// index; the site's are every post, a probe each, however many days of counts are kept.

/** The other sites that sent readers in the range, most first (at most STATS_REFERRERS_MAX). */
async function mostReferring(db: Kysely<Database>, from: string, scope: Scope) {
  const rows = await db
    .selectFrom("posts")
    .crossJoin("post_referrers_daily")
    .select((eb) => [
      "post_referrers_daily.host",
      eb.fn.sum<number>("post_referrers_daily.views").as("views"),
    ])
    .whereRef("post_referrers_daily.post_id", "=", "posts.id")
    .where("post_referrers_daily.day", ">=", from)
    .where((eb) => inScope(eb, scope))
    .groupBy("post_referrers_daily.host")
    .orderBy("views", "desc")
    .orderBy("post_referrers_daily.host")
    .limit(STATS_REFERRERS_MAX)
    .execute();
  return rows.map((row) => ({ host: row.host, views: num(row.views) }));
}

/** The posts read in the range, most viewed first (at most STATS_POSTS_MAX). */
async function mostRead(db: Kysely<Database>, from: string, scope: Omit<Scope, "postId">) {
  const rows = await db
    .selectFrom("posts")
    .crossJoin("post_views_daily")
    .select((eb) => [
      "posts.id",
      "posts.title",
      eb.fn.sum<number>("post_views_daily.views").as("views"),
      eb.fn.sum<number>("post_views_daily.visitors").as("visitors"),
    ])
    .whereRef("post_views_daily.post_id", "=", "posts.id")
    .where("post_views_daily.day", ">=", from)
    .where((eb) => inScope(eb, scope))
    .groupBy(["posts.id", "posts.title"])
    .orderBy("views", "desc")
    .orderBy("posts.id")
    .limit(STATS_POSTS_MAX)
    .execute();
  return rows.map((row) => ({
    _id: row.id,
    title: row.title,
    views: num(row.views),
    visitors: num(row.visitors),
  }));
}

/** One post's stats (its author or an admin; anyone else: 404, as for a post they cannot see). */
export async function postStats(
  deps: Pick<CoreDeps, "db" | "clock">,
  actor: Actor,
  postId: string,
  days: StatsRange,
) {
  const { stats } = await postWithStats(deps, actor, postId, days);
  // The API's days are views and visitors (the page's CSV has likes and comments too).
  return {
    ...stats,
    daily: stats.daily.map(({ date, views, visitors }) => ({ date, views, visitors })),
  };
}

/** One post's stats and the post's title (its page heads with it). */
export async function postWithStats(
  deps: Pick<CoreDeps, "db" | "clock">,
  actor: Actor,
  postId: string,
  days: StatsRange,
) {
  const post = await deps.db
    .selectFrom("posts")
    .select(["id", "user_id", "title"])
    .where("id", "=", isId(postId) ? postId : "")
    .executeTakeFirst();
  if (!post || (post.user_id !== actor.id && !actor.isAdmin)) throw notFound(m.postNotFound);
  const range = rangeDays(deps.clock(), days);
  const from = range[0] ?? "";
  const since = startOf(range);
  const [views, reactions, referrers] = await Promise.all([
    deps.db
      .selectFrom("post_views_daily")
      .select(["day", "views", "visitors"])
      .where("post_id", "=", post.id)
      .where("day", ">=", from)
      .execute(),
    // The likes and comments of each day, in one statement.
    deps.db
      .selectFrom("likes")
      .select((eb) => [
        dayOfColumn("created_at").as("day"),
        sql<string>`'likes'`.as("kind"),
        eb.fn.countAll<number>().as("count"),
      ])
      .where("post_id", "=", post.id)
      .where("created_at", ">=", since)
      .groupBy(dayOfColumn("created_at"))
      .unionAll((eb) =>
        eb
          .selectFrom("comments")
          .select([
            dayOfColumn("created_at").as("day"),
            sql<string>`'comments'`.as("kind"),
            eb.fn.countAll<number>().as("count"),
          ])
          .where("post_id", "=", post.id)
          .where("created_at", ">=", since)
          .groupBy(dayOfColumn("created_at")),
      )
      .execute(),
    mostReferring(deps.db, from, { postId: post.id }),
  ]);
  const daily = withReactions(fill(range, viewsByDay(views), { views: 0, visitors: 0 }), {
    likes: ofKind(reactions, "likes"),
    comments: ofKind(reactions, "comments"),
  });
  return {
    post: { _id: post.id, title: post.title },
    stats: {
      ...total(daily),
      likes: daily.reduce((sum, day) => sum + day.likes, 0),
      comments: daily.reduce((sum, day) => sum + day.comments, 0),
      daily,
      referrers,
    },
  };
}

type DayCounts = { day: string; count: number | string | bigint }[];

/** Each day with its likes and comments beside its views. */
function withReactions<T extends { date: string }>(
  days: T[],
  counted: { likes: DayCounts; comments: DayCounts },
) {
  const likesOf = byDay(counted.likes);
  const commentsOf = byDay(counted.comments);
  return days.map((day) => ({
    ...day,
    likes: likesOf.get(day.date) ?? 0,
    comments: commentsOf.get(day.date) ?? 0,
  }));
}

/**
 * A writer's stats over all their posts, with likes and comments a day (the API answers the
 * totals; the CSV export and the page the days too).
 */
export async function writerStats(
  deps: Pick<CoreDeps, "db" | "clock">,
  authorId: string,
  days: StatsRange,
) {
  const db: Kysely<Database> = deps.db;
  const range = rangeDays(deps.clock(), days);
  const from = range[0] ?? "";
  const since = startOf(range);
  const [views, likes, comments, referrers, posts, subscribers] = await Promise.all([
    db
      .selectFrom("author_views_daily")
      .select(["day", "views", "visitors"])
      .where("author_id", "=", authorId)
      .where("day", ">=", from)
      .execute(),
    db
      .selectFrom("likes")
      .innerJoin("posts", "posts.id", "likes.post_id")
      .select((eb) => [
        dayOfColumn("likes.created_at").as("day"),
        eb.fn.countAll<number>().as("count"),
      ])
      .where("posts.user_id", "=", authorId)
      .where("likes.created_at", ">=", since)
      .groupBy(dayOfColumn("likes.created_at"))
      .execute(),
    db
      .selectFrom("comments")
      .innerJoin("posts", "posts.id", "comments.post_id")
      .select((eb) => [
        dayOfColumn("comments.created_at").as("day"),
        eb.fn.countAll<number>().as("count"),
      ])
      .where("posts.user_id", "=", authorId)
      .where("comments.created_at", ">=", since)
      .groupBy(dayOfColumn("comments.created_at"))
      .execute(),
    mostReferring(db, from, { authorId }),
    mostRead(db, from, { authorId }),
    subscriberNumbers(db, { authorId }, since),
  ]);
  const daily = withReactions(fill(range, viewsByDay(views), { views: 0, visitors: 0 }), {
    likes,
    comments,
  }).map((day) => ({ ...day, subscribers: subscribers.byDay.get(day.date) ?? 0 }));
  return {
    ...total(daily),
    likes: daily.reduce((sum, day) => sum + day.likes, 0),
    comments: daily.reduce((sum, day) => sum + day.comments, 0),
    subscribers: subscribers.active,
    daily,
    referrers,
    // The API lists a writer's posts by views (the admin's page shows visitors too).
    posts: posts.map((post) => ({ _id: post._id, title: post.title, views: post.views })),
  };
}

/** `GET /api/stats/me`: the writer's stats in the contract's shape. */
export async function myStats(
  deps: Pick<CoreDeps, "db" | "clock">,
  actor: Actor,
  days: StatsRange,
) {
  const stats = await writerStats(deps, actor.id, days);
  return {
    ...stats,
    daily: stats.daily.map(({ date, views, visitors, subscribers }) => ({
      date,
      views,
      visitors,
      subscribers,
    })),
  };
}

/** The whole site's numbers a day (admins). */
export async function siteStats(
  deps: Pick<CoreDeps, "db" | "clock">,
  actor: Actor,
  days: StatsRange,
) {
  assertAdmin(actor);
  const db = deps.db;
  const range = rangeDays(deps.clock(), days);
  const from = range[0] ?? "";
  const since = startOf(range);
  const [views, counts, subscribers] = await Promise.all([
    db
      .selectFrom("site_views_daily")
      .select(["day", "views", "visitors"])
      .where("day", ">=", from)
      .execute(),
    // Sign-ups, published posts and comments a day, in one statement.
    db
      .selectFrom("users")
      .select((eb) => [
        dayOfColumn("created_at").as("day"),
        sql<string>`'signups'`.as("kind"),
        eb.fn.countAll<number>().as("count"),
      ])
      .where("created_at", ">=", since)
      .groupBy(dayOfColumn("created_at"))
      .unionAll((eb) =>
        eb
          .selectFrom("posts")
          .select([
            dayOfColumn("published_at").as("day"),
            sql<string>`'posts'`.as("kind"),
            eb.fn.countAll<number>().as("count"),
          ])
          .where("status", "=", "published")
          .where("published_at", ">=", since)
          .groupBy(dayOfColumn("published_at")),
      )
      .unionAll((eb) =>
        eb
          .selectFrom("comments")
          .select([
            dayOfColumn("created_at").as("day"),
            sql<string>`'comments'`.as("kind"),
            eb.fn.countAll<number>().as("count"),
          ])
          .where("created_at", ">=", since)
          .groupBy(dayOfColumn("created_at")),
      )
      .execute(),
    subscriberNumbers(db, "site-wide", since),
  ]);
  const signupsOf = byDay(ofKind(counts, "signups"));
  const postsOf = byDay(ofKind(counts, "posts"));
  const commentsOf = byDay(ofKind(counts, "comments"));
  const daily = fill(range, viewsByDay(views), { views: 0, visitors: 0 }).map((day) => ({
    date: day.date,
    views: day.views,
    visitors: day.visitors,
    signups: signupsOf.get(day.date) ?? 0,
    posts: postsOf.get(day.date) ?? 0,
    comments: commentsOf.get(day.date) ?? 0,
    subscribers: subscribers.byDay.get(day.date) ?? 0,
  }));
  const sum = (key: "signups" | "posts" | "comments") =>
    daily.reduce((all, day) => all + day[key], 0);
  return {
    ...total(daily),
    signups: sum("signups"),
    posts: sum("posts"),
    comments: sum("comments"),
    subscribers: subscribers.active,
    daily,
  };
}

/**
 * The site's most read posts (views and visitors) and the other sites that sent readers, over the
 * range (admins): the writer's rankings over every post.
 */
export async function siteRankings(
  deps: Pick<CoreDeps, "db" | "clock">,
  actor: Actor,
  days: StatsRange,
) {
  assertAdmin(actor);
  const from = rangeDays(deps.clock(), days)[0] ?? "";
  const [posts, referrers] = await Promise.all([
    mostRead(deps.db, from, {}),
    mostReferring(deps.db, from, {}),
  ]);
  return { posts, referrers };
}

/** The columns of a writer's and a post's CSV, after the date. */
export const READER_CSV_COLUMNS = ["views", "visitors", "likes", "comments"] as const;
/** The columns of the site's CSV, after the date (subscribers: those new that day). */
export const SITE_CSV_COLUMNS = [
  "views",
  "visitors",
  "signups",
  "posts",
  "comments",
  "subscribers",
] as const;

/** Daily numbers as CSV (RFC 4180), oldest first: the date, then the columns asked for. */
export function dailyCsv<K extends string>(
  daily: readonly ({ date: string } & Record<K, number>)[],
  columns: readonly K[],
) {
  const lines = [csvLine(["date", ...columns])];
  for (const day of daily) {
    lines.push(csvLine([day.date, ...columns.map((column) => String(day[column]))]));
  }
  return lines.join("");
}
