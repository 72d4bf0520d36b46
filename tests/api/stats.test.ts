import { randomUUID } from "node:crypto";
import http from "node:http";
import { sql, type Kysely } from "kysely";
import { beforeAll, describe, expect, it } from "vitest";
import { statsMessages } from "../../contract/stats.js";
import { tablesOf } from "../../core/porting/database.js";
import { openDatabase } from "../../db/connect.js";
import { forgetPastDays } from "../../core/stats/view-counter.js";
import { buildUser, signInAdmin, type TestUser } from "../support/factories.js";
import { client, rawGet, type Reply } from "../support/http.js";
import { openTestSite } from "../support/site.js";
import {
  addCategory,
  addComment,
  addPost,
  toggleLikeOf,
  type ErrorBody,
  type PostDetail,
} from "../support/post-fixtures.js";
import { SITE_BUILT, startTestServer } from "../support/test-server.js";

// Writers' stats (DESIGN.md 10, "Writers' stats"; decision 026): views of post pages counted on
// the server as real browsers ask for them, written in batches (every 100 ms here), read through
// the three stats calls. Every rule that leaves a request out is tested beside a view that counts,
// so a rule that counted everything (or nothing) fails. Counts are awaited by polling the API
// until a last view of a post of the test's own shows (`written`).

/** Views are written every 100 ms: a test waits for them by asking the API. */
const FAST = { viewFlushMs: 100 };
const CHROME =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36";

const { server, api, admin } = await openTestSite({ app: FAST });

let category: string;
/** A post of its own whose views tell when the views made before them are written. */
let marker: { author: TestUser; post: PostDetail };
let markerViews = 0;
const MARKER_AGENT =
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15";

beforeAll(async () => {
  category = (await addCategory(api, admin, "Numbers")).title;
  const markerAuthor = await buildUser(server, api);
  marker = { author: markerAuthor, post: await addPost(api, markerAuthor, { category }) };
  // The marker's reader is one of the site's visitors from here on: tests see it add views only.
  if (SITE_BUILT) await written();
});

interface DayCount {
  date: string;
  views: number;
  visitors: number;
}
interface PostStats {
  views: number;
  visitors: number;
  likes: number;
  comments: number;
  daily: DayCount[];
  referrers: { host: string; views: number }[];
}
interface MyStats extends Omit<PostStats, "daily"> {
  posts: { _id: string; title: string; views: number }[];
  /** Active subscriptions to the writer now (DESIGN.md 11, "Newsletters"). */
  subscribers: number;
  daily: (DayCount & { subscribers: number })[];
}
interface SiteStats {
  views: number;
  visitors: number;
  signups: number;
  posts: number;
  comments: number;
  subscribers: number;
  daily: (DayCount & { signups: number; posts: number; comments: number; subscribers: number })[];
}

let readerCounter = 0;
/**
 * A browser of its own (Firefox, with a mark no other test's has): the same address with another
 * user agent is another visitor, so each test's readers are new to the writer and to the site.
 */
function newBrowser() {
  readerCounter += 1;
  const mark = `${String(readerCounter)}${Math.random().toString(36).slice(2, 8)}`;
  return `Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0 Reader/${mark}`;
}

const postPage = (id: string) => `/posts/details/${id}`;
/** What React Router asks for as it navigates to a post in the browser. */
const postData = (id: string) => `/posts/details/${id}.data`;
const sessionOf = (user: TestUser) => ({ cookie: `session=${user.token}` });

/** A page request as a browser makes it; the answer is read whole. */
async function visit(path: string, headers: Record<string, string>, method = "GET", body?: string) {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers,
    body,
    redirect: "manual",
  });
  await response.arrayBuffer();
  return response;
}

/** A view that counts: a browser reads a post's page (200). */
async function read(postId: string, agent: string, headers: Record<string, string> = {}) {
  const response = await visit(postPage(postId), { "user-agent": agent, ...headers });
  expect(response.status, `${postPage(postId)} for ${agent}`).toBe(200);
  return response;
}

/**
 * A view from another address of this machine (127.0.0.2: all of 127/8 is loopback), as the
 * server sees its client without trusting any proxy header.
 */
function readFrom(localAddress: string, postId: string, agent: string) {
  const url = new URL(`${server.url}${postPage(postId)}`);
  return new Promise<void>((resolve, reject) => {
    http
      .get(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          localAddress,
          headers: { "user-agent": agent },
        },
        (response) => {
          response.resume();
          response.on("end", () => {
            if (response.statusCode === 200) resolve();
            else reject(new Error(`${url.pathname} answered ${String(response.statusCode)}`));
          });
        },
      )
      .on("error", reject);
  });
}

/** A writer of their own with a published post (the writer's numbers are theirs alone). */
async function writerWithPost(title = "Counted") {
  const author = await buildUser(server, api);
  const post = await addPost(api, author, { category, title });
  return { author, post };
}

const statsPath = (postId: string) => `/api/stats/posts/${encodeURIComponent(postId)}`;

/**
 * Waits until every view made so far is written: a view of a post of its own is made last, and
 * batches are written one after another, each whole, so once it shows, all before it have (a
 * count seen while it climbs could not tell a view left out from one not written yet).
 */
async function written() {
  const path = statsPath(marker.post._id);
  const ask = () => api.get<PostStats>(path, { token: marker.author.token });
  const before = (await ask()).body.views;
  await read(marker.post._id, MARKER_AGENT);
  markerViews += 1;
  const deadline = Date.now() + 10_000;
  for (;;) {
    const reply = await ask();
    expect(reply.status, reply.text).toBe(200);
    if (reply.body.views > before) return;
    if (Date.now() > deadline) throw new Error(`the views were never written: ${reply.text}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** What a stats call answers once every view made so far is written. */
async function statsOf<T = PostStats>(path: string, user: TestUser) {
  await written();
  const reply = await api.get<T>(path, { token: user.token });
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

/** The site's numbers now, and how many of its views the marker made so far. */
async function siteNow() {
  return { stats: await statsOf<SiteStats>("/api/admin/stats", admin), markers: markerViews };
}

/** How the site's numbers moved since `before`, the marker's views left out. */
async function siteMoved(before: Awaited<ReturnType<typeof siteNow>>) {
  const after = await siteNow();
  return {
    views: after.stats.views - before.stats.views - (after.markers - before.markers),
    visitors: after.stats.visitors - before.stats.visitors,
    signups: after.stats.signups - before.stats.signups,
    posts: after.stats.posts - before.stats.posts,
    comments: after.stats.comments - before.stats.comments,
  };
}

const today = () => new Date().toISOString().slice(0, 10);

/** The rows a stats table holds where `column` is `value`. */
async function rowsOf(
  table: "post_views_daily" | "author_views_daily" | "post_referrers_daily" | "stats_visitors",
  column: string,
  value: string,
) {
  const db = server.app.deps.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  return db.selectFrom(table).selectAll().where(column, "=", value).execute();
}

function expectError(reply: Reply, status: number) {
  expect(reply.status, reply.text).toBe(status);
  expect(typeof (reply.body as Partial<ErrorBody>).message).toBe("string");
}

/** Each day of a range once, consecutive, oldest first, ending today (UTC). */
function expectDays(daily: { date: string }[], days: number, endsOn: readonly string[]) {
  expect(daily).toHaveLength(days);
  const dates = daily.map((day) => day.date);
  expect(endsOn).toContain(dates.at(-1));
  for (let at = 1; at < dates.length; at += 1) {
    const step =
      Date.parse(`${dates[at] ?? ""}T00:00:00Z`) - Date.parse(`${dates[at - 1] ?? ""}T00:00:00Z`);
    expect(step, `${dates[at - 1] ?? ""} then ${dates[at] ?? ""}`).toBe(86_400_000);
  }
}

describe("refusals", () => {
  it("asks for a session: 401 on all three calls", async () => {
    const { post } = await writerWithPost();
    for (const path of [statsPath(post._id), "/api/stats/me", "/api/admin/stats"]) {
      expectError(await api.get(path), 401);
      expectError(await api.get(path, { token: "not-a-token-at-all-0123456789" }), 401);
    }
  });

  it("takes days=7, 30 or 90 only: 400 otherwise, on all three calls", async () => {
    const { author, post } = await writerWithPost();
    const calls = [
      { path: statsPath(post._id), token: author.token },
      { path: "/api/stats/me", token: author.token },
      { path: "/api/admin/stats", token: admin.token },
    ];
    for (const { path, token } of calls) {
      const join = path.includes("?") ? "&" : "?";
      for (const days of ["0", "1", "31", "abc", "7.5", "-7", "", "07", "7&days=30"]) {
        const reply = await api.get<ErrorBody>(`${path}${join}days=${days}`, { token });
        expectError(reply, 400);
        expect(reply.body.errors?.days, `days=${days}`).toBe(statsMessages.days);
      }
      for (const days of ["7", "30", "90"]) {
        const reply = await api.get<PostStats>(`${path}${join}days=${days}`, { token });
        expect(reply.status, reply.text).toBe(200);
        expect(reply.body.daily).toHaveLength(Number(days));
      }
    }
  });

  it("answers 404 for another writer's post, an unknown id and a malformed one", async () => {
    const { post } = await writerWithPost();
    const other = await buildUser(server, api);
    expectError(await api.get(statsPath(post._id), { token: other.token }), 404);
    for (const id of [randomUUID(), "abc", "1 OR 1=1", "' OR '1'='1", "x".repeat(300)]) {
      expectError(await api.get(statsPath(id), { token: other.token }), 404);
      expectError(await api.get(statsPath(id), { token: admin.token }), 404);
    }
    // A deleted post has no stats either.
    const { author: writer, post: gone } = await writerWithPost();
    expect((await api.delete(`/api/posts/${gone._id}`, { token: writer.token })).status).toBe(200);
    expectError(await api.get(statsPath(gone._id), { token: writer.token }), 404);
  });

  it("keeps the site's stats to admins (403 for a member), and lets an admin read any post's", async () => {
    const { author, post } = await writerWithPost();
    expectError(await api.get("/api/admin/stats", { token: author.token }), 403);
    expect((await api.get("/api/admin/stats", { token: admin.token })).status).toBe(200);
    const asAdmin = await api.get<PostStats>(statsPath(post._id), { token: admin.token });
    expect(asAdmin.status, asAdmin.text).toBe(200);
    // A draft's stats too, to its author and to an admin.
    const draft = await addPost(api, author, { category, status: "draft" });
    expect((await api.get(statsPath(draft._id), { token: author.token })).status).toBe(200);
    expect((await api.get(statsPath(draft._id), { token: admin.token })).status).toBe(200);
  });
});

// Newsletter subscribers (DESIGN.md 11): active now, and new (confirmed) a day. Rows are written
// as the newsletter's own code writes them, with the times a test needs; its calls are tested in
// tests/api/newsletter-owners.test.ts.
describe("subscribers", () => {
  const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();

  async function subscription(
    email: string,
    scope: string,
    status: "pending" | "active" | "unsubscribed" | "bounced",
    confirmedDaysAgo?: number,
  ) {
    await server.app.deps.db
      .insertInto("subscriptions")
      .values({
        id: randomUUID(),
        email,
        scope_key: scope,
        author_id: scope === "site" ? null : scope,
        status,
        created_at: daysAgo((confirmedDaysAgo ?? 0) + 1),
        confirmed_at: confirmedDaysAgo === undefined ? null : daysAgo(confirmedDaysAgo),
        ended_at: status === "active" || status === "pending" ? null : daysAgo(0),
      })
      .execute();
  }

  it("counts a writer's active subscribers, and those confirmed each day of the range", async () => {
    const { author } = await writerWithPost();
    const other = await buildUser(server, api);
    const siteBefore = (await api.get<SiteStats>("/api/admin/stats", { token: admin.token })).body;
    await subscription("today-1@example.com", author.id, "active", 0);
    await subscription("today-2@example.com", author.id, "active", 0);
    // Confirmed today, gone since: new today, not active now.
    await subscription("left@example.com", author.id, "unsubscribed", 0);
    await subscription("three-days@example.com", author.id, "active", 3);
    await subscription("forty-days@example.com", author.id, "active", 40);
    await subscription("waiting@example.com", author.id, "pending");
    await subscription("bounced@example.com", author.id, "bounced", 5);
    // The same address on the site and another writer: theirs, not this writer's.
    await subscription("today-1@example.com", "site", "active", 0);
    await subscription("today-1@example.com", other.id, "active", 0);

    const mine = await api.get<MyStats>("/api/stats/me", { token: author.token });
    expect(mine.status, mine.text).toBe(200);
    expect(mine.body.subscribers).toBe(4);
    const byDate = new Map(mine.body.daily.map((day) => [day.date, day.subscribers]));
    expect(byDate.get(daysAgo(0).slice(0, 10))).toBe(3);
    expect(byDate.get(daysAgo(3).slice(0, 10))).toBe(1);
    expect(byDate.get(daysAgo(5).slice(0, 10))).toBe(1);
    expect(mine.body.daily.reduce((sum, day) => sum + day.subscribers, 0)).toBe(5);
    // Forty days ago is in the 90 days, not the 30.
    const longer = await api.get<MyStats>("/api/stats/me?days=90", { token: author.token });
    expect(longer.body.daily.reduce((sum, day) => sum + day.subscribers, 0)).toBe(6);
    expect(longer.body.subscribers).toBe(4);
    // Another writer's numbers are theirs.
    const theirs = await api.get<MyStats>("/api/stats/me", { token: other.token });
    expect(theirs.body.subscribers).toBe(1);

    // The site: every scope's active ones, an address once per scope (today-1 three times).
    const site = (await api.get<SiteStats>("/api/admin/stats", { token: admin.token })).body;
    expect(site.subscribers - siteBefore.subscribers).toBe(6);
    const today = (stats: SiteStats) =>
      stats.daily.find((day) => day.date === daysAgo(0).slice(0, 10))?.subscribers ?? 0;
    expect(today(site) - today(siteBefore)).toBe(5);
    expect(
      site.daily.reduce((sum, day) => sum + day.subscribers, 0) -
        siteBefore.daily.reduce((sum, day) => sum + day.subscribers, 0),
    ).toBe(7);
  });
});

// Views are of pages: without the built site (the other Node releases' run) there are none.
describe.skipIf(!SITE_BUILT)("what counts as a view", () => {
  it("leaves out bots, tools, prefetches, HEAD, POST and API reads, and counts a browser", async () => {
    const { author, post } = await writerWithPost();
    const page = postPage(post._id);
    const agents = {
      curl: "curl/8.5.0",
      googlebot:
        "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Googlebot/2.1; +http://www.google.com/bot.html) Chrome/126.0.0.0 Safari/537.36",
      bingbot: "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
      headless:
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/126.0.0.0 Safari/537.36",
      facebook: "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
      slack: "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
      python: "python-requests/2.32.3",
      huge: `${CHROME} ${"x".repeat(600)}`,
    };
    for (const [name, agent] of Object.entries(agents)) {
      const response = await visit(page, { "user-agent": agent });
      expect(response.status, name).toBe(200);
    }
    // No user agent at all (fetch would send its own).
    expect((await rawGet(`${server.url}${page}`, {})).status).toBe(200);
    const prefetches: Record<string, string>[] = [
      { "sec-purpose": "prefetch" },
      { "sec-purpose": "prefetch;prerender" },
      { purpose: "prefetch" },
      { "x-purpose": "preview" },
      { "x-moz": "prefetch" },
    ];
    for (const purpose of prefetches) {
      const response = await visit(page, { "user-agent": CHROME, ...purpose });
      expect(response.status, JSON.stringify(purpose)).toBe(200);
    }
    const head = await visit(page, { "user-agent": CHROME }, "HEAD");
    expect(head.status).toBe(200);
    // A member's like and comment, sent from the page (its action answers 200), read nothing.
    const member = await buildUser(server, api);
    for (const [path, form] of [
      [page, "intent=like"],
      [postData(post._id), "intent=comment&text=Well+said"],
    ] as const) {
      const posted = await visit(
        path,
        {
          "user-agent": CHROME,
          origin: server.config.publicUrl,
          "content-type": "application/x-www-form-urlencoded",
          ...sessionOf(member),
        },
        "POST",
        form,
      );
      expect(posted.status, form).toBe(200);
    }
    const apiRead = await visit(`/api/posts/${post._id}`, { "user-agent": CHROME });
    expect(apiRead.status).toBe(200);

    await read(post._id, CHROME);
    const stats = await statsOf(statsPath(post._id), author);
    expect(stats).toMatchObject({ views: 1, visitors: 1, likes: 1, comments: 1 });
  });

  it("leaves out the author's own views, signed in on the site, and counts other members'", async () => {
    const { author, post } = await writerWithPost();
    const member = await buildUser(server, api);
    const own = await visit(postPage(post._id), { "user-agent": CHROME, ...sessionOf(author) });
    expect(own.status).toBe(200);
    const ownData = await visit(postData(post._id), {
      "user-agent": CHROME,
      ...sessionOf(author),
    });
    expect(ownData.status).toBe(200);

    await read(post._id, newBrowser(), sessionOf(member));
    await read(post._id, newBrowser(), sessionOf(admin));
    const stats = await statsOf(statsPath(post._id), author);
    expect(stats.views).toBe(2);
    expect(stats.visitors).toBe(2);
  });

  it("counts published posts only: not a draft, a scheduled post or an unknown one", async () => {
    const { author, post } = await writerWithPost();
    const draft = await addPost(api, author, { category, status: "draft" });
    const scheduled = await addPost(api, author, {
      category,
      status: "scheduled",
      publishAt: new Date(Date.now() + 86_400_000).toISOString(),
    });
    const unknown = randomUUID();
    for (const id of [draft._id, scheduled._id, unknown]) {
      // Hidden from a visitor; an admin may see the unpublished ones.
      expect((await visit(postPage(id), { "user-agent": CHROME })).status).toBe(404);
      await visit(postPage(id), { "user-agent": CHROME, ...sessionOf(admin) });
      await visit(postData(id), { "user-agent": CHROME, ...sessionOf(admin) });
    }
    await read(post._id, CHROME);
    expect((await statsOf(statsPath(post._id), author)).views).toBe(1);
    for (const id of [draft._id, scheduled._id]) {
      const stats = await api.get<PostStats>(statsPath(id), { token: author.token });
      expect(stats.body.views, id).toBe(0);
    }
    for (const id of [draft._id, scheduled._id, unknown]) {
      expect(await rowsOf("post_views_daily", "post_id", id)).toEqual([]);
      expect(await rowsOf("stats_visitors", "scope", id)).toEqual([]);
    }
    const mine = await api.get<MyStats>("/api/stats/me", { token: author.token });
    expect(mine.body.views).toBe(1);
    expect(mine.body.posts.map((row) => row._id)).toEqual([post._id]);
  });

  it("counts a client navigation (.data) and a trailing slash, but not the page asking for its data again", async () => {
    const { author, post } = await writerWithPost();
    const self = `${server.config.publicUrl}${postPage(post._id)}`;
    // After a like or a comment the page reloads its data: the same reader, no new view.
    for (const referer of [self, `${self}?comments=2`]) {
      const again = await visit(postData(post._id), { "user-agent": CHROME, referer });
      expect(again.status).toBe(200);
    }
    const navigated = await visit(postData(post._id), {
      "user-agent": CHROME,
      referer: `${server.config.publicUrl}/`,
    });
    expect(navigated.status).toBe(200);
    // From another post of the site: a view of this one.
    const { post: other } = await writerWithPost();
    const fromOther = await visit(postData(post._id), {
      "user-agent": CHROME,
      referer: `${server.config.publicUrl}${postPage(other._id)}`,
    });
    expect(fromOther.status).toBe(200);
    // The page's address with a trailing slash is the same page (the router serves it).
    await read(`${post._id}/`, CHROME);
    const stats = await statsOf(statsPath(post._id), author);
    expect(stats.views).toBe(3);
    // The site's own pages are no referrer.
    expect(stats.referrers).toEqual([]);
  });

  it("counts a cached page the browser revalidates (304)", async () => {
    const { author, post } = await writerWithPost();
    const first = await read(post._id, CHROME);
    const etag = first.headers.get("etag");
    expect(etag, "a visitor's page carries a validator").toBeTruthy();
    const again = await visit(postPage(post._id), {
      "user-agent": CHROME,
      "if-none-match": etag ?? "",
    });
    expect(again.status).toBe(304);
    const stats = await statsOf(statsPath(post._id), author);
    expect(stats.views).toBe(2);
    expect(stats.visitors).toBe(1);
  });

  it("keeps other sites' host names as referrers (each reader once), never the site's own or junk", async () => {
    const { author, post } = await writerWithPost();
    const site = server.config.publicUrl;
    const firstReader = newBrowser();
    const referrers = [
      { agent: firstReader, referer: "https://News.Example.org/story/123?utm_source=letter" },
      { agent: newBrowser(), referer: "https://news.example.org/other" },
      { agent: newBrowser(), referer: "https://search.example.com/?q=post" },
      { agent: newBrowser(), referer: `${site}/` },
      { agent: newBrowser(), referer: `${site}/posts?page=2` },
      { agent: newBrowser(), referer: "not a web address" },
      { agent: newBrowser(), referer: "javascript:alert(1)" },
      { agent: newBrowser(), referer: "android-app://com.example.app/" },
      // The first reader again, from elsewhere: a view, but they came from news.example.org.
      { agent: firstReader, referer: "https://other.example.net/" },
    ];
    for (const { agent, referer } of referrers) await read(post._id, agent, { referer });
    const stats = await statsOf(statsPath(post._id), author);
    expect(stats.views).toBe(referrers.length);
    expect(stats.visitors).toBe(referrers.length - 1);
    expect(stats.referrers).toEqual([
      { host: "news.example.org", views: 2 },
      { host: "search.example.com", views: 1 },
    ]);
    const mine = await api.get<MyStats>("/api/stats/me", { token: author.token });
    expect(mine.body.referrers).toEqual(stats.referrers);
    // Host names only: no path, query or scheme is kept.
    const rows = await rowsOf("post_referrers_daily", "post_id", post._id);
    expect(rows.map((row) => row.host).sort()).toEqual(["news.example.org", "search.example.com"]);
  });

  it("tells visitors apart by address and user agent, and counts a reader of two posts once for the writer and the site", async () => {
    const author = await buildUser(server, api);
    const first = await addPost(api, author, { category, title: "First" });
    const second = await addPost(api, author, { category, title: "Second" });
    const before = await siteNow();
    const [ann, bob] = [newBrowser(), newBrowser()];
    await read(first._id, ann);
    await read(first._id, ann);
    await read(first._id, bob);
    // Ann's browser on another address: another visitor.
    await readFrom("127.0.0.2", first._id, ann);
    await read(second._id, ann);
    const mine = await statsOf<MyStats>("/api/stats/me", author);
    expect(mine).toMatchObject({ views: 5, visitors: 3 });
    expect(mine.posts).toEqual([
      { _id: first._id, title: "First", views: 4 },
      { _id: second._id, title: "Second", views: 1 },
    ]);
    const firstStats = await api.get<PostStats>(statsPath(first._id), { token: author.token });
    expect(firstStats.body).toMatchObject({ views: 4, visitors: 3 });
    const secondStats = await api.get<PostStats>(statsPath(second._id), { token: author.token });
    expect(secondStats.body).toMatchObject({ views: 1, visitors: 1 });
    expect(await siteMoved(before)).toMatchObject({ views: 5, visitors: 3 });
  });
});

describe.skipIf(!SITE_BUILT)("the numbers", () => {
  it("gives totals, likes and comments, a day per entry for 7, 30 and 90 days, and the writer's posts most read first", async () => {
    const firstDay = today();
    const before = await siteNow();
    const author = await buildUser(server, api);
    const [once, thrice, twice] = [
      await addPost(api, author, { category, title: "Once" }),
      await addPost(api, author, { category, title: "Thrice" }),
      await addPost(api, author, { category, title: "Twice" }),
    ];
    const unread = await addPost(api, author, { category, title: "Unread" });
    await addPost(api, author, { category, title: "Draft", status: "draft" });
    const [first, second] = [await buildUser(server, api), await buildUser(server, api)];
    await toggleLikeOf(api, first, thrice._id);
    await toggleLikeOf(api, second, thrice._id);
    await addComment(api, first, once._id, "Well put");
    const agent = newBrowser();
    for (const [post, times] of [
      [once, 1],
      [thrice, 3],
      [twice, 2],
    ] as const) {
      for (let n = 0; n < times; n += 1) await read(post._id, agent);
    }

    const mine = await statsOf<MyStats>("/api/stats/me", author);
    // Today as the test began or as it asks (it may run across midnight, UTC).
    const endsOn = [firstDay, today()];
    expect(mine).toMatchObject({ views: 6, visitors: 1, likes: 2, comments: 1, referrers: [] });
    expect(mine.posts).toEqual([
      { _id: thrice._id, title: "Thrice", views: 3 },
      { _id: twice._id, title: "Twice", views: 2 },
      { _id: once._id, title: "Once", views: 1 },
    ]);
    expect(mine.posts.map((row) => row._id)).not.toContain(unread._id);
    expectDays(mine.daily, 30, endsOn);
    expect(mine.daily.at(-1)).toEqual({
      date: mine.daily.at(-1)?.date,
      views: 6,
      visitors: 1,
      subscribers: 0,
    });
    expect(mine.subscribers).toBe(0);
    expect(mine.daily.slice(0, -1).every((day) => day.views === 0 && day.visitors === 0)).toBe(
      true,
    );

    const post = await api.get<PostStats>(statsPath(thrice._id), { token: author.token });
    expect(post.body).toMatchObject({ views: 3, visitors: 1, likes: 2, comments: 0 });
    // An admin reads any writer's post, the same numbers.
    const asAdmin = await api.get<PostStats>(statsPath(thrice._id), { token: admin.token });
    expect(asAdmin.body).toEqual(post.body);
    expect(Object.keys(post.body).sort()).toEqual([
      "comments",
      "daily",
      "likes",
      "referrers",
      "views",
      "visitors",
    ]);
    expect(Object.keys(mine).sort()).toEqual(
      [...Object.keys(post.body), "posts", "subscribers"].sort(),
    );
    for (const days of [7, 30, 90]) {
      const query = `?days=${String(days)}`;
      const ofPost = await api.get<PostStats>(`${statsPath(thrice._id)}${query}`, {
        token: author.token,
      });
      expectDays(ofPost.body.daily, days, endsOn);
      expect(ofPost.body.daily.reduce((sum, day) => sum + day.views, 0)).toBe(3);
      expect(Object.keys(ofPost.body.daily[0] ?? {}).sort()).toEqual(["date", "views", "visitors"]);
      const ofMine = await api.get<MyStats>(`/api/stats/me${query}`, { token: author.token });
      expectDays(ofMine.body.daily, days, endsOn);
      expect(ofMine.body.views).toBe(6);
      const ofSite = await api.get<SiteStats>(`/api/admin/stats${query}`, { token: admin.token });
      expectDays(ofSite.body.daily, days, endsOn);
      expect(Object.keys(ofSite.body.daily[0] ?? {}).sort()).toEqual(
        ["comments", "date", "posts", "signups", "subscribers", "views", "visitors"].sort(),
      );
      expect(Object.keys(ofMine.body.daily[0] ?? {}).sort()).toEqual(
        ["date", "subscribers", "views", "visitors"].sort(),
      );
    }

    // The site: three new members, four published posts (not the draft), one comment.
    expect(await siteMoved(before)).toEqual({
      views: 6,
      visitors: 1,
      signups: 3,
      posts: 4,
      comments: 1,
    });
    const site = await api.get<SiteStats>("/api/admin/stats", { token: admin.token });
    expect(Object.keys(site.body).sort()).toEqual(
      ["comments", "daily", "posts", "signups", "subscribers", "views", "visitors"].sort(),
    );
    const lastDay = site.body.daily.at(-1);
    expect(lastDay?.signups).toBe(site.body.signups);
    expect(lastDay?.views).toBe(site.body.views);
  });

  it("counts a flood from one client as views, one visitor and one referrer, in one row per post and day", async () => {
    const { author, post } = await writerWithPost();
    const agent = newBrowser();
    const FLOOD = 300;
    const hosts = Array.from({ length: FLOOD }, (_, n) => `site${String(n)}.example.com`);
    // Ten at a time, as a busy client would.
    for (let at = 0; at < FLOOD; at += 10) {
      await Promise.all(
        hosts
          .slice(at, at + 10)
          .map((host) => read(post._id, agent, { referer: `https://${host}/` })),
      );
    }
    const stats = await statsOf(statsPath(post._id), author);
    expect(stats.views).toBe(FLOOD);
    expect(stats.visitors).toBe(1);
    expect(stats.referrers).toHaveLength(1);
    expect(stats.referrers[0]?.views).toBe(1);
    expect(hosts).toContain(stats.referrers[0]?.host);

    expect(await rowsOf("post_views_daily", "post_id", post._id)).toHaveLength(1);
    expect(await rowsOf("author_views_daily", "author_id", author.id)).toHaveLength(1);
    expect(await rowsOf("post_referrers_daily", "post_id", post._id)).toHaveLength(1);
    // The reader's hash, once for the post (and once each for the writer and the site).
    expect(await rowsOf("stats_visitors", "scope", post._id)).toHaveLength(1);
    const siteDays = await server.app.deps.db
      .selectFrom("site_views_daily")
      .select("day")
      .execute();
    expect(siteDays.map((row) => row.day)).toEqual([today()]);
  });

  it("adds batches up (never overwrites), and keeps the views of a batch the database refused", async () => {
    const { author, post } = await writerWithPost();
    const [ann, bob, cat] = [newBrowser(), newBrowser(), newBrowser()];
    await read(post._id, ann);
    await read(post._id, ann);
    expect(await statsOf(statsPath(post._id), author)).toMatchObject({ views: 2, visitors: 1 });
    await read(post._id, ann);
    await read(post._id, bob);
    await read(post._id, bob, { referer: "https://later.example.org/" });
    expect(await statsOf(statsPath(post._id), author)).toMatchObject({ views: 5, visitors: 2 });

    // The database refuses the next batch (a table it writes to is away): nothing of it lands,
    // and it is written whole once the table is back.
    const db = server.app.deps.db;
    const warned = () =>
      server.logs.filter((line) => line.includes("could not write the counted views")).length;
    const warnings = warned();
    await sql`ALTER TABLE site_views_daily RENAME TO site_views_daily_away`.execute(db);
    try {
      await read(post._id, bob);
      await read(post._id, cat, { referer: "https://during.example.org/" });
      const deadline = Date.now() + 10_000;
      while (warned() === warnings && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(warned()).toBeGreaterThan(warnings);
      const refused = await api.get<PostStats>(statsPath(post._id), { token: author.token });
      expect(refused.body).toMatchObject({ views: 5, visitors: 2, referrers: [] });
      expect(await rowsOf("stats_visitors", "scope", post._id)).toHaveLength(2);
    } finally {
      await sql`ALTER TABLE site_views_daily_away RENAME TO site_views_daily`.execute(db);
    }
    await read(post._id, cat);
    const stats = await statsOf(statsPath(post._id), author);
    expect(stats).toMatchObject({
      views: 8,
      visitors: 3,
      referrers: [{ host: "during.example.org", views: 1 }],
    });
    const mine = await api.get<MyStats>("/api/stats/me", { token: author.token });
    expect(mine.body).toMatchObject({ views: 8, visitors: 3 });
  });
});

describe.skipIf(!SITE_BUILT)("privacy", () => {
  it("stores no address, user agent or referring page, and sets no cookie", async () => {
    const mark = Math.random().toString(36).slice(2, 10);
    const agent = `${CHROME} Stats-Probe-${mark}`;
    const { author, post } = await writerWithPost(`Probe post ${mark}`);
    const referer = `https://probe-${mark}.example.org/secret-path-${mark}/?token=private-${mark}`;
    const page = await read(post._id, agent, { referer });
    expect(page.headers.getSetCookie()).toEqual([]);
    const data = await visit(postData(post._id), { "user-agent": agent, referer });
    expect(data.status).toBe(200);
    expect(data.headers.getSetCookie()).toEqual([]);
    const again = await visit(postPage(post._id), {
      "user-agent": agent,
      "if-none-match": page.headers.get("etag") ?? "",
    });
    expect(again.status).toBe(304);
    expect(again.headers.getSetCookie()).toEqual([]);
    await readFrom("127.0.0.2", post._id, agent);
    const stats = await statsOf(statsPath(post._id), author);
    expect(stats).toMatchObject({ views: 4, visitors: 2 });

    // Every row of every table, every column, as text.
    const db = server.app.deps.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
    const tables = await tablesOf(server.app.deps.db);
    expect(tables.map((table) => table.name)).toEqual(
      expect.arrayContaining(["posts", "post_views_daily", "stats_visitors", "stats_salts"]),
    );
    const found = new Map<string, string[]>();
    for (const { name } of tables) {
      const rows = await db.selectFrom(name).selectAll().execute();
      const text = JSON.stringify(rows, (_key, value: unknown) =>
        Buffer.isBuffer(value) ? value.toString("latin1") : value,
      );
      for (const needle of [
        `Stats-Probe-${mark}`,
        "127.0.0.1",
        "127.0.0.2",
        `secret-path-${mark}`,
        `private-${mark}`,
        `probe-${mark}.example.org`,
        `Probe post ${mark}`,
      ]) {
        if (text.includes(needle)) found.set(needle, [...(found.get(needle) ?? []), name]);
      }
    }
    // What is stored is found where it should be (the scan reads what it must)...
    expect(found.get(`Probe post ${mark}`)).toContain("posts");
    expect(found.get(`probe-${mark}.example.org`)).toEqual(["post_referrers_daily"]);
    // ...and the reader is found nowhere.
    expect(found.get(`Stats-Probe-${mark}`)).toBeUndefined();
    expect(found.get("127.0.0.1")).toBeUndefined();
    expect(found.get("127.0.0.2")).toBeUndefined();
    expect(found.get(`secret-path-${mark}`)).toBeUndefined();
    expect(found.get(`private-${mark}`)).toBeUndefined();
  });
});

describe.skipIf(!SITE_BUILT)("a client that changes its agent on every view", () => {
  it("is a few readers (one per agent up to the bound, then one), not one a view", async () => {
    const own = await startTestServer({}, { viewFlushMs: 100, viewAgentsPerAddress: 3 });
    try {
      const ownApi = client(own.url);
      const ownAdmin = await signInAdmin(own, ownApi);
      await addCategory(ownApi, ownAdmin, "Rotating");
      const writer = await buildUser(own, ownApi);
      const post = await addPost(ownApi, writer, { category: "Rotating" });
      const agents = Array.from({ length: 10 }, () => newBrowser());
      for (const agent of [...agents, agents[0] ?? CHROME, agents[9] ?? CHROME]) {
        const response = await fetch(`${own.url}${postPage(post._id)}`, {
          headers: { "user-agent": agent },
        });
        await response.arrayBuffer();
        expect(response.status).toBe(200);
      }
      let stats = { views: 0, visitors: 0 };
      for (let tries = 0; stats.views < 12 && tries < 100; tries += 1) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        const reply = await ownApi.get<{ views: number; visitors: number }>(
          `/api/stats/posts/${post._id}`,
          { token: writer.token },
        );
        stats = reply.body;
      }
      // Three agents are three readers; the seven after them (and their returns) one more.
      expect(stats).toMatchObject({ views: 12, visitors: 4 });
      const hashes = await own.app.deps.db
        .selectFrom("stats_visitors")
        .select("visitor")
        .where("scope", "=", post._id)
        .execute();
      expect(hashes).toHaveLength(4);
    } finally {
      await own.close();
    }
  });
});

describe.skipIf(!SITE_BUILT)("VIEW_COUNTING", () => {
  /**
   * A server of its own that writes only as it stops: a post read twice, the server stopped, and
   * what its database then holds.
   */
  async function viewsLeftOnStop(env: Record<string, string>) {
    const own = await startTestServer(env, { viewFlushMs: 3_600_000 });
    try {
      const ownApi = client(own.url);
      const ownAdmin = await signInAdmin(own, ownApi);
      await addCategory(ownApi, ownAdmin, "Counted");
      const post = await addPost(ownApi, await buildUser(own, ownApi), { category: "Counted" });
      for (const agent of [CHROME, newBrowser()]) {
        const response = await fetch(`${own.url}${postPage(post._id)}`, {
          headers: { "user-agent": agent },
        });
        await response.arrayBuffer();
        expect(response.status).toBe(200);
      }
      await own.app.server.close();
      const database = openDatabase({ databaseUrl: own.config.databaseUrl, dataDir: own.dataDir });
      try {
        const { db } = database;
        return {
          posts: await db.selectFrom("post_views_daily").select(["views", "visitors"]).execute(),
          site: await db.selectFrom("site_views_daily").select(["views", "visitors"]).execute(),
          visitors: (await db.selectFrom("stats_visitors").select("day").execute()).length,
        };
      } finally {
        await database.close();
      }
    } finally {
      await own.close();
    }
  }

  it("forgets past days' salts and hashes; with counting off, today's too", async () => {
    const own = await startTestServer({}, { viewFlushMs: 3_600_000 });
    try {
      const { db } = own.app.deps;
      const now = new Date();
      const day = (daysAgo: number) =>
        new Date(now.getTime() - daysAgo * 86_400_000).toISOString().slice(0, 10);
      // Start-up made today's and tomorrow's salts; these stand for what earlier days left.
      await db
        .insertInto("stats_salts")
        .values([{ day: day(1), salt: "yesterday's" }])
        .execute();
      await db
        .insertInto("stats_visitors")
        .values([0, 1, 2, 3].map((ago) => ({ day: day(ago), scope: "site", visitor: `v${ago}` })))
        .execute();
      const left = async () => ({
        salts: (await db.selectFrom("stats_salts").select("day").orderBy("day").execute()).map(
          (row) => row.day,
        ),
        hashes: (await db.selectFrom("stats_visitors").select("day").orderBy("day").execute()).map(
          (row) => row.day,
        ),
      });
      await forgetPastDays(db, now);
      expect(await left()).toEqual({ salts: [day(0), day(-1)], hashes: [day(1), day(0)] });
      await forgetPastDays(db, now, false);
      expect(await left()).toEqual({ salts: [], hashes: [] });
    } finally {
      await own.close();
    }
  });

  it("off counts nothing; on, a server that stops writes what it counted", async () => {
    const on = await viewsLeftOnStop({});
    expect(on.posts).toEqual([{ views: 2, visitors: 2 }]);
    expect(on.site).toEqual([{ views: 2, visitors: 2 }]);
    expect(on.visitors).toBe(6);
    const off = await viewsLeftOnStop({ VIEW_COUNTING: "off" });
    expect(off).toEqual({ posts: [], site: [], visitors: 0 });
  });
});
