import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ViewCounter, type View } from "../../core/stats/view-counter.js";
import { buildUser, signInAdmin, type TestUser } from "../support/factories.js";
import { client, type Client } from "../support/http.js";
import { addCategory, addPost, type PostDetail } from "../support/post-fixtures.js";
import { freshPostgres, startTestServer, type TestServer } from "../support/test-server.js";

// Writers' stats across instances (DESIGN.md 10, "Writers' stats"; decision 026): two servers on
// one PostgreSQL database, each counting views in its own memory and writing its batches (every
// 100 ms here) into the same daily rows. Their numbers add up, never overwrite each other, and a
// reader seen by both is one visitor. Runs where DATABASE_URL is given (CI's PostgreSQL pass).

const databaseUrl = process.env.DATABASE_URL;
const FAST = { viewFlushMs: 100 };
const firefox = (mark: string) =>
  `Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0 Reader/${mark}`;
/** The reader whose views tell when everything before them is written. */
const MARKER_AGENT = firefox("marker");
const WARNING = "could not write the counted views";

interface PostStats {
  views: number;
  visitors: number;
  referrers: { host: string; views: number }[];
}

describe.skipIf(!databaseUrl)("view counts from two instances on one PostgreSQL database", () => {
  let database: Awaited<ReturnType<typeof freshPostgres>>;
  let a: TestServer;
  let b: TestServer;
  let api: Client;
  let admin: TestUser;
  let category: string;
  let marker: { author: TestUser; post: PostDetail };

  beforeAll(async () => {
    database = await freshPostgres(databaseUrl ?? "");
    // One after the other: starting together is tests/scale/two-instances.test.ts's concern.
    a = await startTestServer({ DATABASE_URL: database.url }, FAST);
    b = await startTestServer({ DATABASE_URL: database.url }, FAST);
    api = client(a.url);
    admin = await signInAdmin(a, api);
    category = (await addCategory(api, admin, "Shared")).title;
    const markerAuthor = await buildUser(a, api);
    marker = { author: markerAuthor, post: await addPost(api, markerAuthor, { category }) };
  }, 60_000);
  afterAll(async () => {
    await a.close();
    await b.close();
    await database.drop();
  });

  /** A browser reads a post's page on one instance. */
  async function read(on: TestServer, postId: string, agent: string, referer?: string) {
    const response = await fetch(`${on.url}/posts/details/${postId}`, {
      headers: { "user-agent": agent, ...(referer === undefined ? {} : { referer }) },
    });
    await response.arrayBuffer();
    expect(response.status).toBe(200);
  }

  const statsOf = async <T = PostStats>(path: string, user: TestUser) => {
    const reply = await api.get<T>(path, { token: user.token });
    expect(reply.status, reply.text).toBe(200);
    return reply.body;
  };

  /**
   * Waits until both instances have written every view made so far: each reads the marker post
   * once more, after everything else, and batches are written in order, each whole.
   */
  async function writtenByBoth() {
    const path = `/api/stats/posts/${marker.post._id}`;
    const before = (await statsOf(path, marker.author)).views;
    await read(a, marker.post._id, MARKER_AGENT);
    await read(b, marker.post._id, MARKER_AGENT);
    const deadline = Date.now() + 15_000;
    while ((await statsOf(path, marker.author)).views < before + 2) {
      if (Date.now() > deadline) throw new Error("the instances never wrote their views");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  const warnings = () => [...a.logs, ...b.logs].filter((line) => line.includes(WARNING));

  it("adds both instances' views, and counts a reader seen by both as one visitor", async () => {
    const author = await buildUser(a, api);
    const post = await addPost(api, author, { category, title: "Read on both" });
    const [ann, bob, cat] = [firefox("ann"), firefox("bob"), firefox("cat")];
    // Ann reads on both; Bob on B only, Cat on A only, each sent by another site.
    await Promise.all([
      read(a, post._id, ann),
      read(b, post._id, ann),
      read(b, post._id, bob, "https://news.example.org/item"),
      read(a, post._id, cat, "https://search.example.com/"),
    ]);
    await Promise.all([read(a, post._id, ann), read(b, post._id, ann), read(b, post._id, bob)]);
    await writtenByBoth();

    const stats = await statsOf(`/api/stats/posts/${post._id}`, author);
    expect(stats).toMatchObject({ views: 7, visitors: 3 });
    expect(stats.referrers).toEqual([
      { host: "news.example.org", views: 1 },
      { host: "search.example.com", views: 1 },
    ]);
    // The same numbers whichever instance is asked.
    const onB = await client(b.url).get<PostStats>(`/api/stats/posts/${post._id}`, {
      token: author.token,
    });
    expect(onB.body).toEqual(stats);
    expect(await statsOf("/api/stats/me", author)).toMatchObject({ views: 7, visitors: 3 });

    const { db } = a.app.deps;
    const rows = await db
      .selectFrom("post_views_daily")
      .selectAll()
      .where("post_id", "=", post._id)
      .execute();
    expect(rows).toHaveLength(1);
    const visitors = await db
      .selectFrom("stats_visitors")
      .select("visitor")
      .where("scope", "=", post._id)
      .execute();
    expect(visitors).toHaveLength(3);
    expect(warnings()).toEqual([]);
  });

  it("loses no view and counts no visitor twice while both write the same rows at once", async () => {
    const author = await buildUser(a, api);
    const posts = [
      await addPost(api, author, { category, title: "One" }),
      await addPost(api, author, { category, title: "Two" }),
    ];
    const site = () => statsOf("/api/admin/stats", admin);
    await writtenByBoth();
    const before = await site();
    // Twelve readers, each reading both posts on both instances, in another order on each.
    const readers = Array.from({ length: 12 }, (_, n) => firefox(`busy${String(n)}`));
    const visits = readers.flatMap((agent) => posts.map((post) => ({ agent, post })));
    const ROUNDS = 3;
    for (let round = 0; round < ROUNDS; round += 1) {
      await Promise.all([
        ...visits.map(({ agent, post }) => read(a, post._id, agent)),
        ...visits.toReversed().map(({ agent, post }) => read(b, post._id, agent)),
      ]);
    }
    await writtenByBoth();

    const perPost = readers.length * 2 * ROUNDS;
    for (const post of posts) {
      const stats = await statsOf(`/api/stats/posts/${post._id}`, author);
      expect(stats, post.title).toMatchObject({ views: perPost, visitors: readers.length });
    }
    expect(await statsOf("/api/stats/me", author)).toMatchObject({
      views: perPost * 2,
      visitors: readers.length,
    });
    const after = await site();
    // The marker's two views are the site's too.
    expect(after.views - before.views).toBe(perPost * 2 + 2);
    expect(after.visitors - before.visitors).toBe(readers.length);
    expect(warnings()).toEqual([]);
  });

  it("lets two instances write the same rows at the same moment (they wait, never deadlock)", async () => {
    // Each instance's counter, driven directly: over HTTP the two writes rarely meet in time.
    const author = await buildUser(a, api);
    const posts = [
      await addPost(api, author, { category, title: "Three" }),
      await addPost(api, author, { category, title: "Four" }),
      await addPost(api, author, { category, title: "Five" }),
      await addPost(api, author, { category, title: "Six" }),
    ];
    const failures: object[] = [];
    const counterOn = (server: TestServer) =>
      new ViewCounter({
        db: server.app.deps.db,
        clock: () => new Date(),
        log: {
          warn(details) {
            failures.push(details);
          },
        },
      });
    const [onA, onB] = [counterOn(a), counterOn(b)];
    await onA.prepare();
    await onB.prepare();
    const [READERS, ROUNDS] = [40, 30];
    /** A round's readers of every post, new each round: their visitor rows are new to both. */
    const viewsOfRound = (round: number): View[] =>
      Array.from({ length: READERS }, (_, n) =>
        posts.map((post) => ({
          postId: post._id,
          viewerId: undefined,
          ip: `198.51.100.${String(n)}`,
          userAgent: firefox(`together${String(round)}`),
          referrerHost: `site${String(n % 5)}.example.org`,
        })),
      ).flat();

    for (let round = 0; round < ROUNDS; round += 1) {
      // The same rows, taken in opposite orders: what two busy instances do.
      const views = viewsOfRound(round);
      for (const view of views) onA.record(view);
      for (const view of views.toReversed()) onB.record(view);
      const written = await Promise.allSettled([onA.flush(), onB.flush()]);
      expect(
        written.flatMap((result) => (result.status === "rejected" ? [String(result.reason)] : [])),
        `round ${String(round)}`,
      ).toEqual([]);
    }
    expect(failures).toEqual([]);
    for (const post of posts) {
      const stats = await statsOf(`/api/stats/posts/${post._id}`, author);
      expect(stats).toMatchObject({ views: ROUNDS * 2 * READERS, visitors: ROUNDS * READERS });
      expect(stats.referrers.reduce((sum, referrer) => sum + referrer.views, 0)).toBe(
        ROUNDS * READERS,
      );
    }
  });
});
