import { isTag, normalizeTag } from "../../contract/content.js";
import { findCategoryByTitle } from "../../core/categories/categories-service.js";
import type { CoreDeps } from "../../core/deps.js";
import { listPosts, type PostFilter } from "../../core/posts/posts-service.js";
import type { PostSummary } from "../../core/posts/presenters.js";
import { invalid, notFound } from "../../core/shared/errors.js";
import { findUser } from "../../core/users/users-service.js";
import { categoryPath, profilePath, seriesPath, tagPath } from "../../contract/page-paths.js";
import { findSeries } from "../../core/series/series-service.js";

/** Posts a feed lists: the latest, as most readers keep what they saw before. */
const FEED_ITEMS = 20;

/** The query parameters that narrow a feed (DESIGN.md 10, "Integrations"): one at a time. */
const FILTERS = ["category", "tag", "author", "series"] as const;
type FilterName = (typeof FILTERS)[number];

/** What a filtered feed follows: one category, tag or author, and the page listing the same. */
export interface FeedTopic {
  param: FilterName;
  /** The query's value as the feed names itself: the category's own spelling, the stored tag. */
  value: string;
  /** What the feed's title adds: the category's title, the tag, the author's username, the series'. */
  name: string;
  /** The site's page of the same posts. */
  path: string;
  /** "in Travel", "tagged trains", "by ada", "in the series Rust basics": the description says it. */
  phrase: string;
}

export interface FeedSelection {
  posts: PostSummary[];
  /** Absent for the whole site's feed. */
  topic?: FeedTopic | undefined;
}

const latest = (deps: CoreDeps, filter: PostFilter) => listPosts(deps, filter, 1, FEED_ITEMS);

/**
 * The filter a feed's query names, if any. Other parameters (a reader's `utm_source`) are left
 * alone; a filter given twice, with no value, or beside another is a mistake worth a 400, not a
 * feed of something else that the reader would keep polling.
 */
function askedFilter(query: unknown): { param: FilterName; value: string } | undefined {
  const given =
    query !== null && typeof query === "object" ? (query as Record<string, unknown>) : {};
  const named = FILTERS.filter((param) => given[param] !== undefined);
  if (named.length > 1) {
    throw invalid(
      `A feed follows one of category, tag, author or series: ${named.join(" and ")} given`,
    );
  }
  const [param] = named;
  if (param === undefined) return undefined;
  const value = given[param];
  if (typeof value !== "string") throw invalid(`Only one ${param} may be given`);
  if (value.trim() === "") throw invalid(`${param} must not be empty`);
  return { param, value };
}

/** As its page finds it: in any spelling, or the title posts keep after their category went. */
async function categoryFeed(deps: CoreDeps, text: string): Promise<FeedSelection | undefined> {
  const category = await findCategoryByTitle(deps, text);
  const title = category?.title ?? text;
  const posts = await latest(deps, { category: title });
  if (!category && posts.length === 0) return undefined;
  const path = categoryPath(title);
  return {
    posts,
    topic: { param: "category", value: title, name: title, path, phrase: `in ${title}` },
  };
}

/** A tag is known while a published post carries it, as its page is. */
async function tagFeed(deps: CoreDeps, text: string): Promise<FeedSelection | undefined> {
  const tag = normalizeTag(text);
  if (!isTag(tag)) return undefined;
  const posts = await latest(deps, { tag });
  if (posts.length === 0) return undefined;
  const path = tagPath(tag);
  return { posts, topic: { param: "tag", value: tag, name: tag, path, phrase: `tagged ${tag}` } };
}

/** Any member's: one who has published nothing yet has an empty feed to subscribe to. */
async function authorFeed(deps: CoreDeps, id: string): Promise<FeedSelection | undefined> {
  // A malformed id is no user either (findUser checks its shape before asking).
  const user = await findUser(deps, id);
  if (!user) return undefined;
  const posts = await latest(deps, { userId: user.id });
  const { username } = user;
  const path = profilePath(user.id);
  return {
    posts,
    topic: { param: "author", value: user.id, name: username, path, phrase: `by ${username}` },
  };
}

/** A series' published parts, newest first (a reader subscribes to hear of the next one). */
async function seriesFeed(deps: CoreDeps, id: string): Promise<FeedSelection | undefined> {
  const series = await findSeries(deps, id);
  if (!series) return undefined;
  const posts = await latest(deps, { seriesId: series.id });
  const { title } = series;
  const path = seriesPath(series.id);
  return {
    posts,
    topic: {
      param: "series",
      value: series.id,
      name: title,
      path,
      phrase: `in the series ${title}`,
    },
  };
}

const FEED_OF: Record<
  FilterName,
  (deps: CoreDeps, value: string) => Promise<FeedSelection | undefined>
> = { category: categoryFeed, tag: tagFeed, author: authorFeed, series: seriesFeed };

/** The posts of the feed a query asks for; 400 for a query that asks wrongly, 404 for nothing. */
export async function selectFeed(deps: CoreDeps, query: unknown): Promise<FeedSelection> {
  const asked = askedFilter(query);
  if (!asked) return { posts: await latest(deps, {}) };
  const selection = await FEED_OF[asked.param](deps, asked.value);
  // An empty feed would look like a quiet one to a reader, polled forever: it is no feed.
  if (!selection) throw notFound("Not found");
  return selection;
}

/** `?category=Travel`: the query naming the feed, or nothing for the whole site's. */
export const topicQuery = (topic: FeedTopic | undefined) =>
  topic ? `?${topic.param}=${encodeURIComponent(topic.value)}` : "";
