import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { statsMessages } from "../../contract/stats.js";
import type { TestUser } from "../support/factories.js";
import { addComment, addPost, toggleLikeOf, type PostDetail } from "../support/post-fixtures.js";
import { openTestSite } from "../support/site.js";
import { SITE_BUILT } from "../support/test-server.js";

// The stats pages' CSV files beside a post's and the admin's pages, and the admin's rankings
// (issue 50; decision 031, "Stats charts"). A site of its own, so the site's numbers are this
// file's alone. Past days' counts are written as the view counter writes them (views cannot be
// made on a past day); no post page is read here, so nothing else is counted meanwhile.

const {
  server,
  api,
  admin,
  users: { writer, other, quiet },
} = await openTestSite({ users: ["writer", "other", "quiet"], categories: ["Numbers"] });

const DAY_MS = 86_400_000;
/** The UTC day `ago` days before today. */
const day = (ago: number) => new Date(Date.now() - ago * DAY_MS).toISOString().slice(0, 10);

let first: PostDetail;
let second: PostDetail;
let old: PostDetail;

/** Views and visitors of a day: a post's, its writer's over their posts, the site's. */
interface Counts {
  ago: number;
  views: number;
  visitors: number;
}

async function counted(rows: {
  posts: (Counts & { post: PostDetail })[];
  writer: Counts[];
  site: Counts[];
}) {
  const { db } = server.app.deps;
  await db
    .insertInto("post_views_daily")
    .values(
      rows.posts.map(({ post, ago, views, visitors }) => ({
        post_id: post._id,
        day: day(ago),
        views,
        visitors,
      })),
    )
    .execute();
  await db
    .insertInto("author_views_daily")
    .values(
      rows.writer.map(({ ago, views, visitors }) => ({
        author_id: writer.id,
        day: day(ago),
        views,
        visitors,
      })),
    )
    .execute();
  await db
    .insertInto("site_views_daily")
    .values(rows.site.map(({ ago, views, visitors }) => ({ day: day(ago), views, visitors })))
    .execute();
}

async function referred(post: PostDetail, ago: number, host: string, views: number) {
  await server.app.deps.db
    .insertInto("post_referrers_daily")
    .values({ post_id: post._id, day: day(ago), host, views })
    .execute();
}

beforeAll(async () => {
  first = await addPost(api, writer, { category: "Numbers", title: "First" });
  second = await addPost(api, writer, { category: "Numbers", title: "Second" });
  old = await addPost(api, writer, { category: "Numbers", title: "Old" });
  // 45 days ago is in the 90 days, not the 30.
  const days = [
    { ago: 3, views: 17, visitors: 9 },
    { ago: 1, views: 2, visitors: 2 },
    { ago: 45, views: 40, visitors: 30 },
  ];
  await counted({
    posts: [
      { post: first, ago: 3, views: 7, visitors: 4 },
      { post: second, ago: 3, views: 10, visitors: 5 },
      { post: second, ago: 1, views: 2, visitors: 2 },
      { post: old, ago: 45, views: 40, visitors: 30 },
    ],
    writer: days,
    site: days,
  });
  await referred(first, 3, "news.example.com", 3);
  await referred(second, 3, "news.example.com", 2);
  await referred(second, 1, "forum.example.org", 2);
  await referred(old, 45, "old.example.net", 9);
  await toggleLikeOf(api, other, first._id);
  await addComment(api, other, first._id, "Counted today");
});

interface Page {
  status: number;
  headers: Headers;
  text: string;
}

/** A page (or file) as a browser asks for it, signed in as `user` or not at all. */
async function get(path: string, user?: TestUser): Promise<Page> {
  const response = await fetch(`${server.url}${path}`, {
    headers: user ? { cookie: `session=${user.token}` } : {},
    redirect: "manual",
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const postCsv = (id: string, query = "") =>
  `/stats/posts/${encodeURIComponent(id)}/export.csv${query}`;
const SITE_CSV = "/admin-dashboard/stats/export.csv";

/** The file's lines, once it is checked to be a CSV download named `filename`. */
function csvLines(file: Page, filename: string) {
  expect(file.status, file.text).toBe(200);
  expect(file.headers.get("content-type")).toBe("text/csv; charset=utf-8");
  expect(file.headers.get("content-disposition")).toBe(`attachment; filename="${filename}"`);
  expect(file.headers.get("cache-control")).toBe("private, no-store");
  expect(file.text.endsWith("\r\n")).toBe(true);
  return file.text.slice(0, -2).split("\r\n");
}

/** The list items under a stats page's section heading, as text, and the links in them. */
function rankingOf(html: string, heading: string) {
  const start = html.indexOf(`>${heading}</h2>`);
  expect(start, `a section "${heading}"`).toBeGreaterThan(-1);
  const list = /<(ol|p)(?=[\s>])[^>]*>([\s\S]*?)<\/\1>/.exec(html.slice(start))?.[2] ?? "";
  const items = [...list.matchAll(/<li>([\s\S]*?)<\/li>/g)].map((match) => match[1] ?? "");
  return {
    items: items.map((item) => item.replace(/<[^>]+>/g, "").replace(/&#x27;/g, "'")),
    links: [...list.matchAll(/href="([^"]*)"/g)].map((match) => match[1]),
  };
}

describe.skipIf(!SITE_BUILT)("a post's CSV", () => {
  it("sends a visitor to sign in, and answers 404 to another member, an unknown id and a malformed one", async () => {
    const visitor = await get(postCsv(first._id));
    expect(visitor.status).toBe(302);
    expect(visitor.headers.get("location")).toBe(
      `/?${new URLSearchParams({ from: `/stats/posts/${first._id}` }).toString()}`,
    );
    expect((await get(postCsv(first._id), other)).status).toBe(404);
    for (const id of [randomUUID(), "abc", "x".repeat(300)]) {
      expect((await get(postCsv(id), writer)).status, id).toBe(404);
      expect((await get(postCsv(id), admin)).status, id).toBe(404);
    }
    // A deleted post has none either.
    const gone = await addPost(api, writer, { category: "Numbers", title: "Gone" });
    expect((await api.delete(`/api/posts/${gone._id}`, { token: writer.token })).status).toBe(200);
    expect((await get(postCsv(gone._id), writer)).status).toBe(404);
  });

  it("takes days=7, 30 or 90 only: 400 with the API's message otherwise", async () => {
    for (const days of ["14", "abc", "", "7&days=30"]) {
      const refused = await get(postCsv(first._id, `?days=${days}`), writer);
      expect(refused.status, days).toBe(400);
      expect(refused.text).toBe(`${statsMessages.days}\n`);
    }
  });

  it("gives its author and admins the post's days: views, visitors, likes and comments", async () => {
    const lines = csvLines(await get(postCsv(first._id), writer), `stats-${first._id}-30d.csv`);
    expect(lines[0]).toBe("date,views,visitors,likes,comments");
    expect(lines).toHaveLength(31);
    expect(lines[1]).toBe(`${day(29)},0,0,0,0`);
    expect(lines).toContain(`${day(3)},7,4,0,0`);
    expect(lines.at(-1)).toBe(`${day(0)},0,0,1,1`);
    const asAdmin = await get(postCsv(first._id), admin);
    expect(asAdmin.text).toBe(lines.join("\r\n") + "\r\n");

    const week = csvLines(
      await get(postCsv(second._id, "?days=7"), writer),
      `stats-${second._id}-7d.csv`,
    );
    expect(week.slice(1)).toEqual([
      `${day(6)},0,0,0,0`,
      `${day(5)},0,0,0,0`,
      `${day(4)},0,0,0,0`,
      `${day(3)},10,5,0,0`,
      `${day(2)},0,0,0,0`,
      `${day(1)},2,2,0,0`,
      `${day(0)},0,0,0,0`,
    ]);
    const longer = csvLines(
      await get(postCsv(old._id, "?days=90"), writer),
      `stats-${old._id}-90d.csv`,
    );
    expect(longer).toHaveLength(91);
    expect(longer).toContain(`${day(45)},40,30,0,0`);
    expect(csvLines(await get(postCsv(old._id), writer), `stats-${old._id}-30d.csv`)).not.toContain(
      `${day(45)},40,30,0,0`,
    );
  });

  it("is the writer's CSV's format: their own file has their days over all posts", async () => {
    const lines = csvLines(await get("/stats/export.csv", writer), "stats-30d.csv");
    expect(lines[0]).toBe("date,views,visitors,likes,comments");
    expect(lines).toContain(`${day(3)},17,9,0,0`);
    expect(lines.at(-1)).toBe(`${day(0)},0,0,1,1`);
  });

  it("leaves the API's days as they were: views and visitors", async () => {
    const reply = await api.get<{ daily: Record<string, unknown>[]; likes: number }>(
      `/api/stats/posts/${first._id}`,
      { token: writer.token },
    );
    expect(reply.body.likes).toBe(1);
    expect(Object.keys(reply.body.daily[0] ?? {}).sort()).toEqual(["date", "views", "visitors"]);
  });
});

describe.skipIf(!SITE_BUILT)("the site's CSV", () => {
  it("is the admins' alone: a visitor is sent home, a member told 403; another range is a 400", async () => {
    const visitor = await get(SITE_CSV);
    expect(visitor.status).toBe(302);
    expect(visitor.headers.get("location")).toBe("/");
    const member = await get(SITE_CSV, writer);
    expect(member.status).toBe(403);
    expect(member.headers.get("content-type")).not.toContain("text/csv");
    const refused = await get(`${SITE_CSV}?days=31`, admin);
    expect(refused.status).toBe(400);
    expect(refused.text).toBe(`${statsMessages.days}\n`);
  });

  it("gives an admin the site's days, the same numbers as the API's", async () => {
    const lines = csvLines(await get(`${SITE_CSV}?days=90`, admin), "site-stats-90d.csv");
    expect(lines[0]).toBe("date,views,visitors,signups,posts,comments,subscribers");
    expect(lines).toContain(`${day(3)},17,9,0,0,0,0`);
    expect(lines).toContain(`${day(45)},40,30,0,0,0,0`);
    const site = await api.get<{ daily: Record<string, number | string>[] }>(
      "/api/admin/stats?days=90",
      { token: admin.token },
    );
    const columns = ["date", "views", "visitors", "signups", "posts", "comments", "subscribers"];
    expect(lines.slice(1)).toEqual(
      site.body.daily.map((entry) => columns.map((column) => String(entry[column])).join(",")),
    );
    // Today: the admin and three members signed up, three posts published (and not deleted since:
    // published posts are counted from the posts there are), one comment.
    expect(lines.at(-1)).toBe(`${day(0)},0,0,4,3,1,0`);
  });
});

describe.skipIf(!SITE_BUILT)("the admin's stats page", () => {
  it("lists the range's most read posts (linked, views and visitors) and referrers (as text)", async () => {
    const page = await get("/admin-dashboard/stats", admin);
    expect(page.status).toBe(200);
    const posts = rankingOf(page.text, "Most read posts");
    expect(posts.items).toEqual(["Second12 views, 7 visitors", "First7 views, 4 visitors"]);
    expect(posts.links).toEqual([`/posts/details/${second._id}`, `/posts/details/${first._id}`]);
    const from = rankingOf(page.text, "Where readers came from");
    expect(from.items).toEqual(["news.example.com5 visitors", "forum.example.org2 visitors"]);
    expect(from.links).toEqual([]);
    expect(page.text).toContain(`href="/admin-dashboard/stats/export.csv?days=30"`);

    const longer = await get("/admin-dashboard/stats?days=90", admin);
    expect(rankingOf(longer.text, "Most read posts").items).toEqual([
      "Old40 views, 30 visitors",
      "Second12 views, 7 visitors",
      "First7 views, 4 visitors",
    ]);
    expect(rankingOf(longer.text, "Where readers came from").items).toEqual([
      "old.example.net9 visitors",
      "news.example.com5 visitors",
      "forum.example.org2 visitors",
    ]);
  });

  it("offers a post's CSV on its page, and says plainly when a range has no views", async () => {
    const page = await get(`/stats/posts/${first._id}?days=7`, writer);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`href="/stats/posts/${first._id}/export.csv?days=7"`);
    const none = await get("/stats", quiet);
    expect(none.status).toBe(200);
    expect(none.text).toContain("No views in the last 30 days yet.");
    expect(none.text).not.toContain('class="chart-plot"');
  });
});
