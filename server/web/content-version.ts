import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import type { ContentScope } from "../../core/shared/content-changes.js";

/**
 * Where content has got to, read before an answer is made, so the answer can be tagged with it.
 * Two levels (decision 021): the site's version moves on with any write that may change what
 * visitors see; a post's likes and comments move only that post on, counted apart.
 */
export interface ContentState {
  /** The site's version. */
  site: string;
  /**
   * Tells one run of the post count from another (Redis lost it and it started again): answers
   * tagged under another are never current.
   */
  epoch: string;
  /** How many changes to posts' likes and comments there have been so far. */
  count: number;
  /** The count at each asked post's last change of its likes or comments; 0 if none yet. */
  last: number[];
  /** The count at each asked post's last change of its comments alone; 0 if none yet. */
  lastComments: number[];
}

/**
 * A number that moves on whenever content may have changed (any write that may have committed).
 * Shared renders are tagged with the version they started under and dropped once it moves on.
 * With Redis every instance reads the same counters, so a write through one invalidates the pages
 * of all.
 */
export interface ContentVersion {
  /** The site's version now, or undefined when it cannot be known (nothing is then shared). */
  current(): Promise<string | undefined>;
  /** The site's version and where the posts `postIds` have got to, in one read. */
  state(postIds: readonly string[]): Promise<ContentState | undefined>;
  /** Moves the site on; with a `scope`, that post alone (its likes and comments). */
  bump(scope?: ContentScope): Promise<void>;
}

/** What an answer that shows one post's likes or comments (its page, its JSON) is kept under. */
export function postVersion(state: ContentState) {
  return `${state.site}/${state.epoch}/${String(state.last[0] ?? 0)}`;
}

/**
 * What a post's comments, apart from the rest of it, are kept under (decision 029): a like does
 * not move it on, so a post's JSON made again after a like reuses its comments' kept JSON.
 */
export function commentsVersion(state: ContentState) {
  return `${state.site}/${state.epoch}/${String(state.lastComments[0] ?? 0)}`;
}

/** The post a page shows whole (its likes and comments), from the page's address. */
export function postOfPage(address: string): string | undefined {
  const segment = /^\/posts\/details\/([^/?]+?)(?:\.data)?(?:\?|$)/.exec(address)?.[1];
  if (segment === undefined) return undefined;
  // Tagged with the id the page's route reads, which React Router decodes.
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** What a page is made from (`versionsOfPage`). */
export interface PageVersions {
  /** What its shells are kept under: the site's (a post page's likes and comments are live parts). */
  shell: string;
  /** What the page itself, with those parts, is kept under. */
  page: string;
  /** What the parts showing its post's comments alone are kept under (a like leaves it). */
  comments: string;
}

/**
 * What a page at `address` is made from, in one read (decision 029). Undefined when it cannot be
 * known.
 */
export async function versionsOfPage(
  versions: ContentVersion,
  address: string,
): Promise<PageVersions | undefined> {
  const post = postOfPage(address);
  if (post === undefined) {
    const version = await versions.current();
    return version === undefined ? undefined : { shell: version, page: version, comments: version };
  }
  const state = await versions.state([post]);
  return state && { shell: state.site, page: postVersion(state), comments: commentsVersion(state) };
}

/**
 * Whether a list of posts (with their counts) made at `madeAtCount` still shows what `now` holds,
 * `now` read for the posts it lists under the same site version and epoch: none of them changed
 * since.
 */
export function listStillCurrent(madeAtCount: number, now: ContentState) {
  return now.last.every((n) => n <= madeAtCount);
}

/** `PAGE_CACHE=off`: the version is never known, so every page and read is made afresh. */
export const unknownContentVersion: ContentVersion = {
  current: () => Promise.resolve(undefined),
  state: () => Promise.resolve(undefined),
  bump: () => Promise.resolve(),
};

export function memoryContentVersion(): ContentVersion {
  let site = 0;
  let count = 0;
  // Only the posts changed since the site's version last moved: older answers are gone anyway.
  const last = new Map<string, number>();
  const lastComments = new Map<string, number>();
  return {
    current: () => Promise.resolve(String(site)),
    state: (postIds) =>
      Promise.resolve({
        site: String(site),
        epoch: "",
        count,
        last: postIds.map((id) => last.get(id) ?? 0),
        lastComments: postIds.map((id) => lastComments.get(id) ?? 0),
      }),
    bump: (scope) => {
      if (scope) {
        count += 1;
        last.set(scope.postId, count);
        if (scope.comments) lastComments.set(scope.postId, count);
      } else {
        site += 1;
        last.clear();
        lastComments.clear();
      }
      return Promise.resolve();
    },
  };
}

/**
 * A counter that is lost (Redis restarted, the key evicted) starts again from the clock in
 * microseconds, never from 0: counting up from 0 would, after a few writes, reach a number that
 * renders kept before the loss are still tagged with, and they would be served as current.
 * The posts' changes live in a hash of their own, cleared when the site moves on; a hash lost
 * comes back under a new epoch, so nothing tagged before the loss matches it.
 */
const SEEDED = `
if redis.call('EXISTS', KEYS[1]) == 0 then redis.call('SET', KEYS[1], ARGV[1]) end
if ARGV[2] == 'bump' then
  redis.call('DEL', KEYS[2])
  return redis.call('INCR', KEYS[1])
end
return redis.call('GET', KEYS[1])
`;

// A post's comments are counted under `c:` and its id as well (ARGV[3] is 'comments').
const POST_CHANGED = `
redis.call('HSETNX', KEYS[1], '#epoch', ARGV[1])
local count = redis.call('HINCRBY', KEYS[1], '#count', 1)
redis.call('HSET', KEYS[1], ARGV[2], count)
if ARGV[3] == 'comments' then redis.call('HSET', KEYS[1], 'c:' .. ARGV[2], count) end
return count
`;

const STATE = `
if redis.call('EXISTS', KEYS[1]) == 0 then redis.call('SET', KEYS[1], ARGV[1]) end
redis.call('HSETNX', KEYS[2], '#epoch', ARGV[2])
local fields = {'#epoch', '#count'}
for i = 3, #ARGV do fields[#fields + 1] = ARGV[i] end
for i = 3, #ARGV do fields[#fields + 1] = 'c:' .. ARGV[i] end
local values = redis.call('HMGET', KEYS[2], unpack(fields))
table.insert(values, 1, redis.call('GET', KEYS[1]))
return values
`;

export function redisContentVersion(
  redis: Redis,
  key: string,
  onError: (error: unknown) => void,
): ContentVersion {
  const seed = () => String(Date.now() * 1000);
  const newEpoch = () => randomBytes(9).toString("base64url");
  const posts = `${key}:posts`;
  return {
    current: async () => {
      try {
        // The common case is one GET; the script runs only when the counter is missing.
        const version = await redis.get(key);
        return version ?? String(await redis.eval(SEEDED, 2, key, posts, seed(), "read"));
      } catch (error) {
        onError(error);
        return undefined;
      }
    },
    state: async (postIds) => {
      try {
        const values = (await redis.eval(STATE, 2, key, posts, seed(), newEpoch(), ...postIds)) as (
          string | null
        )[];
        const [site, epoch, count, ...counts] = values;
        if (site == null || epoch == null) return undefined;
        const numbers = counts.map((value) => Number(value ?? 0));
        return {
          site,
          epoch,
          count: Number(count ?? 0),
          last: numbers.slice(0, postIds.length),
          lastComments: numbers.slice(postIds.length),
        };
      } catch (error) {
        onError(error);
        return undefined;
      }
    },
    bump: async (scope) => {
      await (scope
        ? redis.eval(
            POST_CHANGED,
            1,
            posts,
            newEpoch(),
            scope.postId,
            scope.comments ? "comments" : "likes",
          )
        : redis.eval(SEEDED, 2, key, posts, seed(), "bump"));
    },
  };
}
