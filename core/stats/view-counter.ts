import { createHash, randomBytes } from "node:crypto";
import type { Kysely, Transaction } from "kysely";
import type { Database } from "../../db/schema.js";
import { engineOf } from "../../db/engine.js";
import { DAY_MS, type Clock } from "../shared/clock.js";

/**
 * Views counted in memory and written in batches (decision 026): a page served from the cache
 * pays for a hash and a map update; every few seconds the batch is added to the day's rows (never
 * written over, so instances add up). Readers are told apart by a hash of the day's random salt,
 * their address and their user agent (the method Plausible documents); the salt is deleted once
 * the day is over and neither the address nor the agent is ever written.
 */

/** One view as the page server saw it. */
export interface View {
  postId: string;
  /** The signed-in reader, if any: a post's own author is not counted. */
  viewerId: string | undefined;
  ip: string;
  userAgent: string;
  /** Another site's host the reader came from. */
  referrerHost: string | undefined;
}

/** Views of one post on one day by one signed-in reader (or by visitors: viewer ""). */
interface Pending {
  day: string;
  postId: string;
  viewerId: string;
  views: number;
  /** Each reader's hash, and the host their first view came from ("" none). */
  readers: Map<string, string>;
}

/** Readers held in memory at most between two writes; past it views count, new readers not. */
const PENDING_READERS_MAX = 100_000;
/**
 * Readers one address can be in a day: one per agent, this many agents, then one for the rest. A
 * household or an office shows a few agents; a client that changes its agent on every request
 * would otherwise be a reader (three rows of hashes) per request.
 */
const AGENTS_PER_ADDRESS = 64;
/** Addresses whose readers are remembered in a day (~12 MB at most); past it, no bound per address. */
const ADDRESSES_MAX = 50_000;
/** Readers whose hash is kept at hand (the busiest ones stay: the map starts again when full). */
const KNOWN_READERS_MAX = 10_000;
/** How many rows one statement writes (SQLite's bound parameters stay well under its limit). */
const CHUNK = 300;
const SITE_SCOPE = "site";
const authorScope = (authorId: string) => `author:${authorId}`;

export const dayOf = (date: Date) => date.toISOString().slice(0, 10);

/** A reader's hash for a day: nothing in it can be turned back into an address or an agent. */
function readerHash(salt: string, ip: string, userAgent: string) {
  return createHash("sha256")
    .update(salt)
    .update("\n")
    .update(ip)
    .update("\n")
    .update(userAgent)
    .digest("base64url")
    .slice(0, 22);
}

export class ViewCounter {
  private pending = new Map<string, Pending>();
  private readers = 0;
  private salts = new Map<string, string>();
  private day = "";
  private dayEndsAt = 0;
  /** Each address's readers today (both as hashes), for the bound on readers an address makes. */
  private readersByAddress = new Map<string, Set<string>>();
  /**
   * Today's readers by address and agent, as they were hashed: the one place addresses and agents
   * are kept, in memory only, until the day ends or the map fills.
   */
  private knownReaders = new Map<string, Map<string, string>>();
  /** This batch's entries of visitors' views today, by post: found without making a key. */
  private visitorsToday = new Map<string, Pending>();

  constructor(
    private readonly deps: {
      db: Kysely<Database>;
      /** A test's clock; the wall's time otherwise. */
      clock?: Clock | undefined;
      log: { warn(details: object, message: string): void };
    },
    private readonly agentsPerAddress = AGENTS_PER_ADDRESS,
  ) {}

  /** The time in ms, without a Date for every view. */
  private now() {
    return this.deps.clock === undefined ? Date.now() : this.deps.clock().getTime();
  }

  /** Counts one view: no I/O, no await, and for a visitor's view no allocation but the first. */
  record(view: View) {
    const day = this.today();
    let entry =
      view.viewerId === undefined
        ? this.visitorsToday.get(view.postId)
        : this.pending.get(`${day} ${view.postId} ${view.viewerId}`);
    if (!entry) entry = this.startEntry(day, view);
    entry.views += 1;
    const salt = this.salts.get(day);
    // Without the day's salt (not read yet) or past the bound, the view counts, its reader not.
    if (salt === undefined || this.readers >= PENDING_READERS_MAX) return;
    const reader = this.readerOf(salt, view);
    if (entry.readers.has(reader)) return;
    entry.readers.set(reader, view.referrerHost ?? "");
    this.readers += 1;
  }

  private startEntry(day: string, view: View) {
    const viewerId = view.viewerId ?? "";
    const key = `${day} ${view.postId} ${viewerId}`;
    // (A failed write's entry put back is this batch's own.)
    let entry = this.pending.get(key);
    if (!entry) {
      entry = { day, postId: view.postId, viewerId, views: 0, readers: new Map() };
      this.pending.set(key, entry);
    }
    if (view.viewerId === undefined) this.visitorsToday.set(view.postId, entry);
    return entry;
  }

  /** Today (UTC), worked out again only when the day ends. */
  private today() {
    const now = this.now();
    if (now >= this.dayEndsAt || now < this.dayEndsAt - DAY_MS) {
      this.day = dayOf(new Date(now));
      this.dayEndsAt = Date.parse(`${this.day}T00:00:00.000Z`) + DAY_MS;
      this.readersByAddress.clear();
      this.knownReaders.clear();
      this.visitorsToday = new Map();
    }
    return this.day;
  }

  /**
   * A reader's hash: by their address and agent, for the first few agents an address shows in a
   * day (a household, an office behind one address); past them, one hash for all the rest, so a
   * client that changes its agent on every request is one more reader, not one per request.
   */
  private readerOf(salt: string, view: View) {
    // A reader's next views cost two map lookups, not two hashes.
    let agents = this.knownReaders.get(view.ip);
    const known = agents?.get(view.userAgent);
    if (known !== undefined) return known;
    const reader = this.boundedReader(salt, view);
    if (!agents) {
      if (this.knownReaders.size >= KNOWN_READERS_MAX) this.knownReaders.clear();
      agents = new Map();
      this.knownReaders.set(view.ip, agents);
    }
    if (agents.size < this.agentsPerAddress) agents.set(view.userAgent, reader);
    return reader;
  }

  private boundedReader(salt: string, view: View) {
    const reader = readerHash(salt, view.ip, view.userAgent);
    if (this.readersByAddress.size >= ADDRESSES_MAX) return reader;
    const address = readerHash(salt, view.ip, "");
    let readers = this.readersByAddress.get(address);
    if (!readers) {
      readers = new Set();
      this.readersByAddress.set(address, readers);
    }
    if (readers.has(reader)) return reader;
    if (readers.size >= this.agentsPerAddress) return address;
    readers.add(reader);
    return reader;
  }

  /**
   * Makes sure today's and tomorrow's salts exist and are known here (every instance uses the
   * same), and deletes the salts of days that are over and the visitor hashes of the day before.
   */
  async prepare() {
    const now = new Date(this.now());
    const today = dayOf(now);
    const tomorrow = dayOf(new Date(now.getTime() + DAY_MS));
    if (this.salts.has(today) && this.salts.has(tomorrow) && this.salts.size === 2) return;
    const db = this.deps.db;
    await db
      .insertInto("stats_salts")
      .values([today, tomorrow].map((day) => ({ day, salt: randomBytes(32).toString("base64") })))
      .onConflict((oc) => oc.column("day").doNothing())
      .execute();
    const rows = await db
      .selectFrom("stats_salts")
      .select(["day", "salt"])
      .where("day", "in", [today, tomorrow])
      .execute();
    this.salts = new Map(rows.map((row) => [row.day, row.salt]));
    await forgetPastDays(db, now);
  }

  /**
   * Writes what was counted since the last write, in one transaction. On failure the views are
   * kept for the next try (added to what came since), so a database hiccup loses none.
   */
  async flush() {
    try {
      await this.prepare();
    } catch (error) {
      this.deps.log.warn({ err: error }, "could not prepare the day's visitor salt");
    }
    if (this.pending.size === 0) return;
    const taken = this.pending;
    this.pending = new Map();
    this.visitorsToday = new Map();
    this.readers = 0;
    try {
      await write(this.deps.db, [...taken.values()]);
    } catch (error) {
      this.putBack(taken);
      throw error;
    }
  }

  private putBack(taken: Map<string, Pending>) {
    for (const [key, entry] of taken) {
      const now = this.pending.get(key);
      if (!now) {
        this.pending.set(key, entry);
        this.readers += entry.readers.size;
        continue;
      }
      now.views += entry.views;
      for (const [reader, host] of entry.readers) {
        if (!now.readers.has(reader)) {
          now.readers.set(reader, host);
          this.readers += 1;
        }
      }
    }
  }
}

/** Rows a statement deletes at most: a big site's day of visitor hashes goes in short steps. */
const DELETE_CHUNK = 2000;

/**
 * Deletes the salts of days that are over (then no hash can be made again from an address and an
 * agent) and the visitor hashes of the days before yesterday (a batch from just before midnight
 * may still come). Run by every write's preparation, and at start whether counting is on or not,
 * so a site that stops counting keeps neither. With counting off, today's go too.
 */
export async function forgetPastDays(db: Kysely<Database>, now: Date, counting = true) {
  let salts = db.deleteFrom("stats_salts");
  if (counting) salts = salts.where("day", "<", dayOf(now));
  await salts.execute();
  const yesterday = dayOf(new Date(now.getTime() - DAY_MS));
  for (;;) {
    let hashes = db.selectFrom("stats_visitors").select(["day", "scope", "visitor"]);
    if (counting) hashes = hashes.where("day", "<", yesterday);
    const old = await hashes.limit(DELETE_CHUNK).execute();
    if (old.length > 0) {
      await db
        .deleteFrom("stats_visitors")
        .where((eb) =>
          eb(
            eb.refTuple("day", "scope", "visitor"),
            "in",
            old.map((row) => eb.tuple(row.day, row.scope, row.visitor)),
          ),
        )
        .execute();
    }
    if (old.length < DELETE_CHUNK) return;
  }
}

/** Views and new readers of one post on one day, ready to be added. */
interface PostDay {
  day: string;
  postId: string;
  authorId: string;
  views: number;
  readers: Map<string, string>;
}

async function write(db: Kysely<Database>, entries: Pending[]) {
  await db.transaction().execute(async (trx) => {
    const posts = await publishedPosts(trx, [...new Set(entries.map((entry) => entry.postId))]);
    // Only published posts, and never their author's own views.
    const byPostDay = new Map<string, PostDay>();
    for (const entry of entries) {
      const post = posts.get(entry.postId);
      if (!post || post.authorId === entry.viewerId) continue;
      const key = `${entry.day} ${entry.postId}`;
      let postDay = byPostDay.get(key);
      if (!postDay) {
        postDay = {
          day: entry.day,
          postId: entry.postId,
          authorId: post.authorId,
          views: 0,
          readers: new Map(),
        };
        byPostDay.set(key, postDay);
      }
      postDay.views += entry.views;
      for (const [reader, host] of entry.readers) {
        if (!postDay.readers.has(reader)) postDay.readers.set(reader, host);
      }
    }
    if (byPostDay.size > 0) await addUp(trx, inKeyOrder(byPostDay));
  });
}

/**
 * The published posts among `ids`, with their authors. On PostgreSQL the posts and their authors
 * are locked as a foreign key check locks them, first: a post or an account deleted meanwhile then
 * waits for this write (or this write for it) instead of the two deadlocking on the daily rows.
 */
async function publishedPosts(trx: Transaction<Database>, ids: string[]) {
  const posts = new Map<string, { authorId: string }>();
  const postgres = engineOf<Database>(trx) === "postgres";
  for (let at = 0; at < ids.length; at += CHUNK) {
    let query = trx
      .selectFrom("posts")
      .select(["id", "user_id"])
      .where("id", "in", ids.slice(at, at + CHUNK).sort())
      .where("status", "=", "published")
      .orderBy("id");
    if (postgres) query = query.forKeyShare();
    for (const row of await query.execute()) posts.set(row.id, { authorId: row.user_id });
  }
  const authors = [...new Set([...posts.values()].map((post) => post.authorId))].sort();
  if (postgres && authors.length > 0) {
    for (let at = 0; at < authors.length; at += CHUNK) {
      await trx
        .selectFrom("users")
        .select("id")
        .where("id", "in", authors.slice(at, at + CHUNK))
        .orderBy("id")
        .forKeyShare()
        .execute();
    }
  }
  return posts;
}

async function addUp(trx: Transaction<Database>, postDays: PostDay[]) {
  // Which readers are new to each post, writer and site today (across batches and instances).
  const newTo = await newReaders(
    trx,
    postDays.flatMap((postDay) =>
      [...postDay.readers.keys()].flatMap((reader) => [
        { day: postDay.day, scope: postDay.postId, visitor: reader },
        { day: postDay.day, scope: authorScope(postDay.authorId), visitor: reader },
        { day: postDay.day, scope: SITE_SCOPE, visitor: reader },
      ]),
    ),
  );
  const newCount = (day: string, scope: string) => newTo.get(`${day} ${scope}`)?.size ?? 0;

  const authorDays = new Map<string, { authorId: string; day: string; views: number }>();
  const siteDays = new Map<string, { day: string; views: number }>();
  const referrers = new Map<string, { postId: string; day: string; host: string; views: number }>();
  for (const postDay of postDays) {
    const authorKey = `${postDay.day} ${postDay.authorId}`;
    const author = authorDays.get(authorKey) ?? {
      authorId: postDay.authorId,
      day: postDay.day,
      views: 0,
    };
    author.views += postDay.views;
    authorDays.set(authorKey, author);
    const site = siteDays.get(postDay.day) ?? { day: postDay.day, views: 0 };
    site.views += postDay.views;
    siteDays.set(postDay.day, site);
    // Where a reader came from counts once: on the view that made them this post's reader today.
    const fresh = newTo.get(`${postDay.day} ${postDay.postId}`);
    for (const [reader, host] of postDay.readers) {
      if (host === "" || !fresh?.has(reader)) continue;
      const key = `${postDay.postId} ${postDay.day} ${host}`;
      const referrer = referrers.get(key) ?? {
        postId: postDay.postId,
        day: postDay.day,
        host,
        views: 0,
      };
      referrer.views += 1;
      referrers.set(key, referrer);
    }
  }

  for (const rows of chunks(
    postDays.map((postDay) => ({
      post_id: postDay.postId,
      day: postDay.day,
      views: postDay.views,
      visitors: newCount(postDay.day, postDay.postId),
    })),
  )) {
    await trx
      .insertInto("post_views_daily")
      .values(rows)
      .onConflict((oc) =>
        oc.columns(["post_id", "day"]).doUpdateSet((eb) => ({
          views: eb("post_views_daily.views", "+", eb.ref("excluded.views")),
          visitors: eb("post_views_daily.visitors", "+", eb.ref("excluded.visitors")),
        })),
      )
      .execute();
  }
  for (const rows of chunks(
    inKeyOrder(authorDays).map((author) => ({
      author_id: author.authorId,
      day: author.day,
      views: author.views,
      visitors: newCount(author.day, authorScope(author.authorId)),
    })),
  )) {
    await trx
      .insertInto("author_views_daily")
      .values(rows)
      .onConflict((oc) =>
        oc.columns(["author_id", "day"]).doUpdateSet((eb) => ({
          views: eb("author_views_daily.views", "+", eb.ref("excluded.views")),
          visitors: eb("author_views_daily.visitors", "+", eb.ref("excluded.visitors")),
        })),
      )
      .execute();
  }
  await trx
    .insertInto("site_views_daily")
    .values(
      inKeyOrder(siteDays).map(({ day, views }) => ({
        day,
        views,
        visitors: newCount(day, SITE_SCOPE),
      })),
    )
    .onConflict((oc) =>
      oc.column("day").doUpdateSet((eb) => ({
        views: eb("site_views_daily.views", "+", eb.ref("excluded.views")),
        visitors: eb("site_views_daily.visitors", "+", eb.ref("excluded.visitors")),
      })),
    )
    .execute();
  for (const rows of chunks(inKeyOrder(referrers))) {
    await trx
      .insertInto("post_referrers_daily")
      .values(
        rows.map((row) => ({
          post_id: row.postId,
          day: row.day,
          host: row.host,
          views: row.views,
        })),
      )
      .onConflict((oc) =>
        oc.columns(["post_id", "day", "host"]).doUpdateSet((eb) => ({
          views: eb("post_referrers_daily.views", "+", eb.ref("excluded.views")),
        })),
      )
      .execute();
  }
}

/** Inserts the readers not yet seen; answers which were new, by `day scope`. */
async function newReaders(
  trx: Transaction<Database>,
  rows: { day: string; scope: string; visitor: string }[],
) {
  const unique = new Map(rows.map((row) => [`${row.day} ${row.scope} ${row.visitor}`, row]));
  const fresh = new Map<string, Set<string>>();
  for (const chunk of chunks(inKeyOrder(unique))) {
    const inserted = await trx
      .insertInto("stats_visitors")
      .values(chunk)
      .onConflict((oc) => oc.columns(["day", "scope", "visitor"]).doNothing())
      .returning(["day", "scope", "visitor"])
      .execute();
    for (const row of inserted) {
      const key = `${row.day} ${row.scope}`;
      const set = fresh.get(key) ?? new Set<string>();
      set.add(row.visitor);
      fresh.set(key, set);
    }
  }
  return fresh;
}

/**
 * Rows in the order of their keys. Every instance's transaction then locks the rows it adds to in
 * the same order, so two writing at once on PostgreSQL wait for each other instead of deadlocking.
 */
function inKeyOrder<T>(rows: Map<string, T>): T[] {
  return [...rows].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, row]) => row);
}

function* chunks<T>(rows: T[]): Generator<T[]> {
  for (let at = 0; at < rows.length; at += CHUNK) yield rows.slice(at, at + CHUNK);
}
