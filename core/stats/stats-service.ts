import { sql, type Kysely } from "kysely";
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

/** One post's stats (its author or an admin; anyone else: 404, as for a post they cannot see). */
export async function postStats(
  deps: Pick<CoreDeps, "db" | "clock">,
  actor: Actor,
  postId: string,
  days: StatsRange,
) {
  return (await postWithStats(deps, actor, postId, days)).stats;
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
  const [views, counts, referrers] = await Promise.all([
    deps.db
      .selectFrom("post_views_daily")
      .select(["day", "views", "visitors"])
      .where("post_id", "=", post.id)
      .where("day", ">=", from)
      .execute(),
    // The likes and comments of the range, in one statement.
    deps.db
      .selectNoFrom((eb) => [
        eb
          .selectFrom("likes")
          .select(eb.fn.countAll<number>().as("count"))
          .where("post_id", "=", post.id)
          .where("created_at", ">=", since)
          .as("likes"),
        eb
          .selectFrom("comments")
          .select(eb.fn.countAll<number>().as("count"))
          .where("post_id", "=", post.id)
          .where("created_at", ">=", since)
          .as("comments"),
      ])
      .executeTakeFirstOrThrow(),
    deps.db
      .selectFrom("post_referrers_daily")
      .select((eb) => ["host", eb.fn.sum<number>("views").as("views")])
      .where("post_id", "=", post.id)
      .where("day", ">=", from)
      .groupBy("host")
      .orderBy("views", "desc")
      .orderBy("host")
      .limit(STATS_REFERRERS_MAX)
      .execute(),
  ]);
  const daily = fill(range, viewsByDay(views), { views: 0, visitors: 0 });
  return {
    post: { _id: post.id, title: post.title },
    stats: {
      ...total(daily),
      likes: num(counts.likes),
      comments: num(counts.comments),
      daily,
      referrers: referrers.map((row) => ({ host: row.host, views: num(row.views) })),
    },
  };
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
    db
      .selectFrom("post_referrers_daily")
      .innerJoin("posts", "posts.id", "post_referrers_daily.post_id")
      .select((eb) => [
        "post_referrers_daily.host",
        eb.fn.sum<number>("post_referrers_daily.views").as("views"),
      ])
      .where("posts.user_id", "=", authorId)
      .where("post_referrers_daily.day", ">=", from)
      .groupBy("post_referrers_daily.host")
      .orderBy("views", "desc")
      .orderBy("post_referrers_daily.host")
      .limit(STATS_REFERRERS_MAX)
      .execute(),
    db
      .selectFrom("post_views_daily")
      .innerJoin("posts", "posts.id", "post_views_daily.post_id")
      .select((eb) => [
        "posts.id",
        "posts.title",
        eb.fn.sum<number>("post_views_daily.views").as("views"),
      ])
      .where("posts.user_id", "=", authorId)
      .where("post_views_daily.day", ">=", from)
      .groupBy(["posts.id", "posts.title"])
      .orderBy("views", "desc")
      .orderBy("posts.id")
      .limit(STATS_POSTS_MAX)
      .execute(),
    subscriberNumbers(db, { authorId }, since),
  ]);
  const likesOf = byDay(likes);
  const commentsOf = byDay(comments);
  const daily = fill(range, viewsByDay(views), { views: 0, visitors: 0 }).map((day) => ({
    ...day,
    likes: likesOf.get(day.date) ?? 0,
    comments: commentsOf.get(day.date) ?? 0,
    subscribers: subscribers.byDay.get(day.date) ?? 0,
  }));
  return {
    ...total(daily),
    likes: daily.reduce((sum, day) => sum + day.likes, 0),
    comments: daily.reduce((sum, day) => sum + day.comments, 0),
    subscribers: subscribers.active,
    daily,
    referrers: referrers.map((row) => ({ host: row.host, views: num(row.views) })),
    posts: posts.map((row) => ({ _id: row.id, title: row.title, views: num(row.views) })),
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
  const [views, signups, posts, comments, subscribers] = await Promise.all([
    db
      .selectFrom("site_views_daily")
      .select(["day", "views", "visitors"])
      .where("day", ">=", from)
      .execute(),
    db
      .selectFrom("users")
      .select((eb) => [dayOfColumn("created_at").as("day"), eb.fn.countAll<number>().as("count")])
      .where("created_at", ">=", since)
      .groupBy(dayOfColumn("created_at"))
      .execute(),
    db
      .selectFrom("posts")
      .select((eb) => [dayOfColumn("published_at").as("day"), eb.fn.countAll<number>().as("count")])
      .where("status", "=", "published")
      .where("published_at", ">=", since)
      .groupBy(dayOfColumn("published_at"))
      .execute(),
    db
      .selectFrom("comments")
      .select((eb) => [dayOfColumn("created_at").as("day"), eb.fn.countAll<number>().as("count")])
      .where("created_at", ">=", since)
      .groupBy(dayOfColumn("created_at"))
      .execute(),
    subscriberNumbers(db, "site-wide", since),
  ]);
  const signupsOf = byDay(signups);
  const postsOf = byDay(posts);
  const commentsOf = byDay(comments);
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

/** A writer's daily numbers as CSV (RFC 4180), oldest first. */
export function dailyCsv(
  daily: { date: string; views: number; visitors: number; likes: number; comments: number }[],
) {
  const lines = ["date,views,visitors,likes,comments"];
  for (const day of daily) {
    lines.push([day.date, day.views, day.visitors, day.likes, day.comments].map(String).join(","));
  }
  return `${lines.join("\r\n")}\r\n`;
}
