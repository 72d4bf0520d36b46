import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildUser, signInAdmin, type TestUser } from "../support/factories.js";
import { client, type Client } from "../support/http.js";
import { addCategory, addPost } from "../support/post-fixtures.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

let server: TestServer;
let api: Client;
let admin: TestUser;
let author: TestUser;

beforeAll(async () => {
  server = await startTestServer();
  api = client(server.url);
  admin = await signInAdmin(server, api);
  author = await buildUser(server, api);
  await addCategory(api, admin, "Travel");
  await addCategory(api, admin, "Empty Shelf");
  await addPost(api, author, { title: "A trip", category: "Travel", tags: "night-trains" });
});
afterAll(() => server.close());

/** The server's render of a page, as an anonymous visitor (or a crawler) gets it. */
async function page(path: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.url}${path}`, { redirect: "manual", headers });
  return {
    status: response.status,
    location: response.headers.get("location"),
    html: await response.text(),
  };
}

const titleOf = (html: string) => /<title>([^<]*)<\/title>/.exec(html)?.[1];
const canonicalOf = (html: string) => /<link rel="canonical" href="([^"]*)"/.exec(html)?.[1];

describe("a category's page", () => {
  it("is not found for text that no category or post has, whatever it says", async () => {
    for (const text of ["Free Money", "<b>Bold</b>", "Travel Deals"]) {
      const path = `/posts/categories/${encodeURIComponent(text)}`;
      const { status, html } = await page(path);
      expect(status, path).toBe(404);
      expect(html).toContain("Page Not Found");
      expect(canonicalOf(html)).toBeUndefined();
      expect(html).not.toContain(encodeURIComponent(text));
      expect((await page(`${path}.data`)).status, `${path}.data`).toBe(404);
    }
  });

  it("sends another spelling of a category's title to its own page", async () => {
    const lower = await page("/posts/categories/%20travel%20");
    expect(lower.status).toBe(302);
    expect(lower.location).toBe("/posts/categories/Travel");
    expect((await page("/posts/categories/TRAVEL?page=2")).location).toBe(
      "/posts/categories/Travel?page=2",
    );
  });

  it("is the category's, with its posts, or says there are none yet", async () => {
    const travel = await page("/posts/categories/Travel");
    expect(travel.status).toBe(200);
    expect(titleOf(travel.html)).toBe(`Travel | ${server.config.site.title}`);
    expect(canonicalOf(travel.html)).toBe(`${server.config.publicUrl}/posts/categories/Travel`);
    expect(travel.html).toContain("A trip");

    const empty = await page("/posts/categories/Empty%20Shelf");
    expect(empty.status).toBe(200);
    expect(empty.html).toContain("No Posts Were Found");
  });

  it("stays while posts keep the title of a category deleted since, and goes with them", async () => {
    const retired = await addCategory(api, admin, "Retired");
    const post = await addPost(api, author, { title: "Kept its tag", category: "Retired" });
    const deleted = await api.delete(`/api/categories/${retired._id}`, { token: admin.token });
    expect(deleted.status).toBe(200);

    const kept = await page("/posts/categories/Retired");
    expect(kept.status).toBe(200);
    expect(kept.html).toContain("Kept its tag");

    expect((await api.delete(`/api/posts/${post._id}`, { token: author.token })).status).toBe(200);
    expect((await page("/posts/categories/Retired")).status).toBe(404);
  });
});

/** The `<link rel="alternate">` tags of a page's head, as `type href title`, in its order. */
const alternatesOf = (html: string) =>
  [...html.matchAll(/<link [^>]*rel="alternate"[^>]*>/g)].map(([tag]) =>
    ["type", "href", "title"]
      .map((name) => new RegExp(` ${name}="([^"]*)"`).exec(tag)?.[1] ?? "")
      .join(" "),
  );

// DESIGN.md 10 "Integrations": a category's, a tag's and an author's page link their own feeds.
describe("the feeds a page links", () => {
  it("are the site's and the category's, the tag's or the author's, RSS and JSON Feed", async () => {
    // The page's own come first (its meta), then the site's (the root's links).
    const site = ["application/rss+xml /rss.xml RSS", "application/feed+json /feed.json JSON Feed"];
    const travel = await page("/posts/categories/Travel");
    expect(alternatesOf(travel.html)).toEqual([
      "application/rss+xml /rss.xml?category=Travel Travel (RSS)",
      "application/feed+json /feed.json?category=Travel Travel (JSON Feed)",
      ...site,
    ]);

    const tag = await page("/tags/night-trains");
    expect(tag.status).toBe(200);
    expect(alternatesOf(tag.html)).toEqual([
      "application/rss+xml /rss.xml?tag=night-trains #night-trains (RSS)",
      "application/feed+json /feed.json?tag=night-trains #night-trains (JSON Feed)",
      ...site,
    ]);

    // Profiles are members' pages (a visitor is sent to sign in), from the shell they share.
    const reader = await buildUser(server, api);
    const profile = await page(`/profile/${author.id}`, { cookie: `session=${reader.token}` });
    expect(profile.status).toBe(200);
    expect(alternatesOf(profile.html)).toEqual([
      `application/rss+xml /rss.xml?author=${author.id} ${author.username} (RSS)`,
      `application/feed+json /feed.json?author=${author.id} ${author.username} (JSON Feed)`,
      ...site,
    ]);
  });
});
