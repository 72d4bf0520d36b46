import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SQLite } from "../../db/sqlite-driver.js";
import { buildUser, signInAdmin, type TestUser } from "../support/factories.js";
import { client, type Client } from "../support/http.js";
import { addCategory, addComment, addPost, toggleLikeOf } from "../support/post-fixtures.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

/**
 * Every page and list costs a fixed number of queries, however many posts, comments, likes and
 * users it shows: no query per row (N+1). Pages are asked for signed in, so each is rendered.
 */
let server: TestServer;
let api: Client;
let admin: TestUser;
let author: TestUser;
let viewer: TestUser;
let queries: string[] = [];

/**
 * The most queries any one page or call may take: the signed-in post page takes 9 (its reader's
 * unread notifications and Saved/Following state, decision 016).
 */
const MOST_QUERIES = 9;

beforeAll(async () => {
  server = await startTestServer(
    {},
    {
      onQuery: (sql) => {
        queries.push(sql);
      },
      // The publisher's and the mail outbox's checks every 5 s would be counted against whichever
      // request they overlap.
      publishCheckMs: 3_600_000,
      mailCheckMs: 3_600_000,
    },
  );
  api = client(server.url);
  admin = await signInAdmin(server, api);
  await addCategory(api, admin, "Travel");
  author = await buildUser(server, api);
  viewer = await buildUser(server, api);
});
afterAll(async () => {
  await server.close();
});

/** The queries one request ran. */
async function queriesOf(path: string, as: TestUser = viewer, cookie = true) {
  queries = [];
  const response = await fetch(`${server.url}${path}`, {
    headers: cookie ? { cookie: `session=${as.token}` } : { authorization: `Bearer ${as.token}` },
  });
  expect(response.status, path).toBe(200);
  await response.arrayBuffer();
  return [...queries];
}

async function addPeople(count: number) {
  const people: TestUser[] = [];
  for (let i = 0; i < count; i += 1) people.push(await buildUser(server, api));
  return people;
}

describe("queries per page", () => {
  it("stay the same as posts, comments, likes and users grow", async () => {
    const post = await addPost(api, author, { title: "Counted", category: "Travel" });
    const [first] = await addPeople(1);
    if (!first) throw new Error("no user");
    await addComment(api, first, post._id, "One remark");
    await toggleLikeOf(api, first, post._id);
    // Follows, saved posts and notifications grow too (decision 016).
    const put = (path: string, who: TestUser) =>
      api.put(path, undefined, { token: who.token }).then((answer) => {
        expect(answer.status, answer.text).toBe(200);
      });
    await put(`/api/users/follow/${author.id}`, viewer);
    await put(`/api/posts/bookmark/${post._id}`, viewer);
    await put(`/api/users/follow/${viewer.id}`, first);

    const pages = [
      "/",
      "/posts",
      "/posts?page=1",
      `/posts/details/${post._id}`,
      "/posts/categories/Travel",
      `/profile/${author.id}`,
      "/search?q=counted",
      "/?tab=following",
      "/reading-list",
      "/notifications",
    ];
    const adminPages = [
      "/admin-dashboard",
      "/admin-dashboard/users-table",
      "/admin-dashboard/posts-table",
      "/admin-dashboard/comments-table",
      "/admin-dashboard/categories-table",
      "/admin-dashboard/site-settings",
    ];
    const calls = [
      "/api/posts?pageNumber=1",
      `/api/posts/${post._id}`,
      "/api/comments",
      "/api/settings",
      "/api/search?q=counted",
    ];
    // One request at a time, so each count is that request's own.
    const countEach = async (paths: string[], as: TestUser, cookie: boolean) => {
      const counts: Record<string, number> = {};
      for (const path of paths) counts[path] = (await queriesOf(path, as, cookie)).length;
      return counts;
    };
    const measure = async () => ({
      ...(await countEach(pages, viewer, true)),
      ...(await countEach(adminPages, admin, true)),
      ...(await countEach(calls, admin, false)),
    });
    const small = await measure();

    for (const person of await addPeople(7)) {
      await addComment(api, person, post._id, `Remark from ${person.username}`);
      await toggleLikeOf(api, person, post._id);
      const theirs = await addPost(api, person, {
        title: `By ${person.username}`,
        category: "Travel",
      });
      await put(`/api/users/follow/${person.id}`, viewer);
      await put(`/api/posts/bookmark/${theirs._id}`, viewer);
      await put(`/api/users/follow/${viewer.id}`, person);
    }
    for (let i = 0; i < 4; i += 1) {
      await addPost(api, author, { title: `More ${String(i)}`, category: "Travel" });
    }
    const large = await measure();

    expect(large).toEqual(small);
    for (const [path, count] of Object.entries(large)) {
      expect(count, path).toBeLessThanOrEqual(MOST_QUERIES);
    }
  });

  it("read every table of a public page or paged list through an index, never a whole table", async () => {
    const post = await addPost(api, author, { title: "Planned", category: "Travel" });
    const paths = [
      "/",
      "/posts?page=2",
      `/posts/details/${post._id}`,
      "/posts/categories/Travel",
      `/profile/${author.id}`,
      "/api/posts?pageNumber=2",
      "/api/posts?pageNumber=1&category=Travel",
      `/api/posts/${post._id}`,
      `/api/users/user/${author.id}?pageNumber=1`,
      `/api/users/profile/${author.id}`,
      "/api/categories/category/Travel?pageNumber=1",
      "/search?q=planned",
      "/api/search?q=planned%20travel&pageNumber=1",
      "/?tab=following",
      "/reading-list",
      "/notifications",
      "/api/posts/feed?pageNumber=1",
      "/api/users/me/bookmarks?pageNumber=1",
      "/api/notifications?pageNumber=1",
    ];
    const sqlite = new SQLite(path.join(server.dataDir, "blog.db"), { readonly: true });
    try {
      for (const page of paths) {
        // The signed-in calls (feed, bookmarks, notifications) take the bearer token.
        for (const sql of new Set(await queriesOf(page, viewer, !page.startsWith("/api/")))) {
          const parameters = Array.from(sql.matchAll(/\?/g), () => null);
          const plan = sqlite.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...parameters) as {
            detail: string;
          }[];
          // "SCAN t" alone reads every row of t; "SCAN t USING INDEX" walks an index in order.
          // The categories are the one table read whole: the menu lists them all, and they are few.
          // A search's candidates are the (at most 1,000) matches it has just read from its index.
          const wholeTables = plan
            .map((step) => step.detail)
            .filter((step) => /^SCAN (?!categories\b|candidates\b)\w+$/.test(step));
          expect(wholeTables, `${page}: ${sql}`).toEqual([]);
        }
      }
    } finally {
      sqlite.close();
    }
  });
});
