import { extractFromJson, extractFromXml } from "@extractus/feed-extractor";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { seedDemo } from "../../bench/seed.js";
import { buildUser, signInAdmin, type TestUser } from "../support/factories.js";
import { client, type Client } from "../support/http.js";
import { addCategory, addPost, type PostDetail } from "../support/post-fixtures.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { elementsNamed, parseXml } from "../support/xml.js";

let server: TestServer;
let api: Client;
let author: TestUser;
let hostileId: string;
/** Every SQL statement the server ran, in order. */
const queries: string[] = [];

/** Characters XML forbids (U+FFFE, U+FFFF, a bell) or discourages (noncharacters, C1 controls). */
const UNFIT = "\uFFFE\uFFFF\u0007\uFDD0\uFDEF\u{1FFFE}\u{10FFFF}\u0080\u009F";

beforeAll(async () => {
  server = await startTestServer(
    {},
    {
      onQuery: (sql, background) => {
        if (!background) queries.push(sql);
      },
    },
  );
  api = client(server.url);
  await seedDemo(server.app.deps.db, server.app.deps.storage, {
    users: 3,
    categories: 2,
    posts: 24,
    likes: 0,
    comments: 0,
  });
  const admin = await signInAdmin(server, api);
  author = await buildUser(server, api);
  await addCategory(api, admin, "R&D <Lab>");
  const post = await addPost(api, author, {
    title: `</title><script>alert("x")</script> & more`,
    category: "R&D <Lab>",
    description: "Tom & Jerry \u0007 <b>bold</b>",
  });
  hostileId = post._id;
});
afterAll(() => server.close());

const locsOf = (document: string) =>
  elementsNamed(parseXml(document), "loc").map((loc) => loc.text);

describe("feeds", () => {
  it("serves robots.txt pointing at the sitemap", async () => {
    const reply = await api.get("/robots.txt");
    expect(reply.status).toBe(200);
    expect(reply.text).toContain(`Sitemap: ${server.config.publicUrl}/sitemap.xml`);
    expect(reply.text).toContain("Disallow: /api/");
  });

  it("lists the 20 latest posts in RSS, escaped, with absolute links", async () => {
    const reply = await api.get("/rss.xml");
    expect(reply.status).toBe(200);
    // RSS 2.0's <author> is an e-mail address: writers are named by Dublin Core's creator.
    expect(reply.text).toContain('xmlns:dc="http://purl.org/dc/elements/1.1/"');
    expect(reply.text).toContain(`<dc:creator>${author.username}</dc:creator>`);
    expect(reply.text).not.toContain("<author>");
    expect(reply.headers.get("content-type")).toContain("application/rss+xml");
    expect(reply.text.match(/<item>/g)).toHaveLength(20);
    expect(reply.text).toContain(
      `<link>${server.config.publicUrl}/posts/details/${hostileId}</link>`,
    );
    expect(reply.text).not.toContain("<script>");
    expect(reply.text).not.toContain("</title><script>");
    expect(reply.text).toContain("&#60;/title&#62;&#60;script&#62;");
    expect(reply.text).not.toContain("\u0007");
    expect(reply.text).toContain("<category>R&#38;D &#60;Lab&#62;</category>");
  });

  it("keeps RSS well-formed XML whatever characters a title holds", async () => {
    await addPost(api, author, {
      title: `Odd${UNFIT} title`,
      category: "R&D <Lab>",
      description: `Odd${UNFIT} words, still read`,
    });
    const reply = await api.get("/rss.xml");
    const feed = parseXml(reply.text);
    expect(feed.name).toBe("rss");
    const titles = elementsNamed(feed, "title").map((title) => title.text);
    expect(titles).toContain("Odd title");
    expect(titles).toContain(`</title><script>alert("x")</script> & more`);
    const descriptions = elementsNamed(feed, "description").map((text) => text.text);
    expect(descriptions).toContain("Odd words, still read");
  });

  it("describes each RSS item by its excerpt: plain text, at most 200 characters", async () => {
    const long = `## A heading\n\nSome **bold** text and a [link](https://example.com). ${"More words. ".repeat(40)}`;
    await addPost(api, author, { title: "In Markdown", category: "R&D <Lab>", description: long });
    const feed = parseXml((await api.get("/rss.xml")).text);
    const item = elementsNamed(feed, "item").find((element) =>
      elementsNamed(element, "title").some((title) => title.text === "In Markdown"),
    );
    const description = item ? elementsNamed(item, "description")[0]?.text : undefined;
    // Blocks apart: a heading ends with a full stop (issue 50, 14).
    expect(description).toMatch(/^A heading\. Some bold text and a link\. More words\. .*…$/);
    expect(description?.length).toBeLessThanOrEqual(200);
  });

  it("carries each RSS item's whole body in content:encoded, its addresses absolute", async () => {
    const body = `## Part one\n\n![A map](/uploads/map.png) and [a page](/posts) ]]> <b>kept</b>\n\n${"Long text. ".repeat(60)}`;
    const post = await addPost(api, author, {
      title: "Whole in the feed",
      category: "R&D <Lab>",
      description: body,
    });
    // Gone again once read: the other tests count the posts the feeds and sitemap list.
    onTestFinished(async () => {
      await api.delete(`/api/posts/${post._id}`, { token: author.token });
    });
    const text = (await api.get("/rss.xml")).text;
    expect(text).toContain('xmlns:content="http://purl.org/rss/1.0/modules/content/"');
    const feed = parseXml(text);
    const item = elementsNamed(feed, "item").find((element) =>
      elementsNamed(element, "title").some((title) => title.text === "Whole in the feed"),
    );
    const encoded = item ? elementsNamed(item, "encoded")[0]?.text : undefined;
    const base = server.config.publicUrl;
    expect(encoded).toContain(`src="${base}/uploads/map.png"`);
    expect(encoded).toContain(`href="${base}/posts"`);
    // Past the excerpt's 200 characters; its "]]>" is escaped text.
    expect(encoded).toContain("]]&gt;");
    expect(encoded?.match(/Long text\./g)).toHaveLength(60);
    expect(encoded).toBe(post.html.replaceAll('="/', `="${base}/`));
  });

  it("lists every post and category in the sitemap, as well-formed XML", async () => {
    // A category with nothing published (a draft only, or nothing at all) is not listed.
    const admin = await signInAdmin(server, api);
    await addCategory(api, admin, "Empty Shelf");
    await addCategory(api, admin, "Drafts Only");
    await addPost(api, author, { title: "Unfinished", category: "Drafts Only", status: "draft" });
    const reply = await api.get("/sitemap.xml");
    expect(reply.text).not.toContain("Empty%20Shelf");
    expect(reply.text).not.toContain("Drafts%20Only");
    expect(reply.status).toBe(200);
    expect(reply.text.match(/<loc>[^<]*\/posts\/details\//g)).toHaveLength(27);
    expect(reply.text).toContain(
      `<loc>${server.config.publicUrl}/posts/categories/R%26D%20%3CLab%3E</loc>`,
    );
    expect(parseXml(reply.text).name).toBe("urlset");
    // Small enough for one file: there are no parts to ask for.
    expect((await api.get("/sitemap-1.xml")).status).toBe(404);
  });

  it("builds the sitemap once per content version, and shows a new post at once", async () => {
    const first = await api.get("/sitemap.xml");
    const before = queries.length;
    const again = await api.get("/sitemap.xml");
    expect(queries.length - before).toBe(0);
    expect(again.text).toBe(first.text);

    const post = await addPost(api, author, { title: "Just in", category: "R&D <Lab>" });
    const after = await api.get("/sitemap.xml");
    expect(after.text).toContain(`${server.config.publicUrl}/posts/details/${post._id}<`);
  });
});

describe("a sitemap past its limit of URLs", () => {
  let big: TestServer;
  let bigApi: Client;
  beforeAll(async () => {
    // The protocol's limit is 50,000 URLs a file; 10 shows the same split with 28 URLs.
    big = await startTestServer({}, { sitemapUrlsMax: 10 });
    bigApi = client(big.url);
    await seedDemo(big.app.deps.db, big.app.deps.storage, {
      users: 2,
      categories: 2,
      posts: 24,
      likes: 0,
      comments: 0,
    });
  });
  afterAll(() => big.close());

  it("is an index of files of at most that many URLs, which together list every one", async () => {
    const base = big.config.publicUrl;
    const index = await bigApi.get("/sitemap.xml");
    expect(index.status).toBe(200);
    expect(parseXml(index.text).name).toBe("sitemapindex");
    const files = locsOf(index.text);
    expect(files).toEqual([1, 2, 3].map((n) => `${base}/sitemap-${String(n)}.xml`));

    const listed: string[] = [];
    for (const file of files) {
      const part = await bigApi.get(file.slice(base.length));
      expect(part.status).toBe(200);
      expect(parseXml(part.text).name).toBe("urlset");
      const locs = locsOf(part.text);
      expect(locs.length).toBeLessThanOrEqual(10);
      listed.push(...locs);
    }
    expect(listed).toHaveLength(28);
    expect(new Set(listed).size).toBe(28);
    expect(listed).toContain(`${base}/`);
    expect(listed.filter((loc) => loc.includes("/posts/details/"))).toHaveLength(24);

    for (const missing of ["/sitemap-0.xml", "/sitemap-4.xml", "/sitemap-01.xml"]) {
      expect((await bigApi.get(missing)).status, missing).toBe(404);
    }
    expect((await bigApi.get("/robots.txt")).text).toContain(`Sitemap: ${base}/sitemap.xml`);
  });
});

// DESIGN.md 10 "Integrations": a category's, a tag's or an author's feed, in RSS and JSON Feed.
describe("filtered feeds", () => {
  let writer: TestUser;
  let rower: TestUser;
  let quiet: TestUser;
  let sleeper: PostDetail;
  let ferry: PostDetail;
  let overnight: PostDetail;
  const FEEDS = ["/rss.xml", "/feed.json"];

  beforeAll(async () => {
    const admin = await signInAdmin(server, api);
    [writer, rower, quiet] = [
      await buildUser(server, api),
      await buildUser(server, api),
      await buildUser(server, api),
    ];
    await addCategory(api, admin, "Night Trains");
    await addCategory(api, admin, "Slow Boats");
    await addCategory(api, admin, "Empty Sidings");
    sleeper = await addPost(api, writer, {
      title: "Sleeper to Vienna",
      category: "Night Trains",
      tags: "rail,europe",
    });
    ferry = await addPost(api, rower, { title: "Ferry days", category: "Slow Boats", tags: "sea" });
    overnight = await addPost(api, rower, {
      title: "Overnight ferry train",
      category: "Night Trains",
      tags: "rail,sea",
    });
    // Neither is public: no feed lists them, and a tag only they carry is no feed's.
    await addPost(api, writer, {
      title: "Draft sleeper",
      category: "Night Trains",
      tags: "rail,draft-only",
      status: "draft",
    });
    await addPost(api, writer, {
      title: "Future sleeper",
      category: "Night Trains",
      tags: "rail,draft-only",
      status: "scheduled",
      publishAt: new Date(Date.now() + 86_400_000).toISOString(),
    });
  });

  /** An RSS feed as a reader's parser sees it, with each item's creator and any author. */
  async function rss(query: string) {
    const reply = await api.get(`/rss.xml${query}`);
    expect(reply.status, reply.text).toBe(200);
    const feed = extractFromXml(reply.text, {
      getExtraFeedFields: (channel) => ({ self: channel["atom:link"] }),
      getExtraEntryFields: (item) => ({ creator: item["dc:creator"], author: item.author }),
    });
    return { reply, feed, entries: feed.entries ?? [] };
  }

  /** A JSON Feed as a reader's parser sees it, with the fields it leaves out by default. */
  async function jsonFeed(query: string) {
    const reply = await api.get(`/feed.json${query}`);
    expect(reply.status, reply.text).toBe(200);
    const feed = extractFromJson(reply.text, {
      getExtraFeedFields: (top) => ({ version: top.version, feedUrl: top.feed_url }),
      getExtraEntryFields: (item) => ({
        url: item.url,
        authors: item.authors,
        tags: item.tags,
        image: item.image,
        modified: item.date_modified,
      }),
    });
    return { reply, feed, entries: feed.entries ?? [] };
  }

  const titlesOf = (entries: { title?: string | undefined }[]) =>
    entries.map((entry) => entry.title).sort();
  const site = () => server.config.site.title;
  const at = (path: string) => `${server.config.publicUrl}${path}`;

  it("answers 404 for an unknown category, tag or author, and a malformed author id", async () => {
    const unknown = [
      "?category=Nowhere",
      "?tag=no-such-tag",
      "?tag=%3Cb%3E",
      "?tag=draft-only",
      "?author=00000000-0000-4000-8000-000000000000",
      "?author=not-an-id",
      "?author=..%2F..%2Fetc",
    ];
    for (const feed of FEEDS) {
      for (const query of unknown) {
        const reply = await api.get(`${feed}${query}`);
        expect(reply.status, `${feed}${query}`).toBe(404);
        expect(reply.headers.get("content-type")).toContain("application/json");
        expect(reply.body).toEqual({ message: "Not found" });
      }
    }
  });

  it("answers 400 for two filters at once, one given twice, or an empty value", async () => {
    const wrong: [string, RegExp][] = [
      ["?category=Slow%20Boats&tag=sea", /one of category, tag, author or series/],
      [`?tag=sea&author=${rower.id}`, /one of category, tag, author or series/],
      ["?tag=sea&tag=rail", /Only one tag may be given/],
      ["?category=", /category must not be empty/],
      ["?tag=%20", /tag must not be empty/],
      ["?author=", /author must not be empty/],
    ];
    for (const feed of FEEDS) {
      for (const [query, message] of wrong) {
        const reply = await api.get<{ message: string }>(`${feed}${query}`);
        expect(reply.status, `${feed}${query}`).toBe(400);
        expect(reply.body.message).toMatch(message);
      }
    }
  });

  it("lists only a category's published posts, in any spelling of its title", async () => {
    const { reply, feed, entries } = await rss("?category=night%20TRAINS");
    expect(reply.headers.get("cache-control")).toBe("public, max-age=300");
    expect(titlesOf(entries)).toEqual(["Overnight ferry train", "Sleeper to Vienna"]);
    expect(feed.title).toBe(`${site()} — Night Trains`);
    expect(feed.link).toBe(at("/posts/categories/Night%20Trains"));
    expect(feed.self).toMatchObject({
      "@_href": at("/rss.xml?category=Night%20Trains"),
      "@_rel": "self",
    });

    const json = await jsonFeed("?category=Night%20Trains");
    expect(titlesOf(json.entries)).toEqual(["Overnight ferry train", "Sleeper to Vienna"]);
    expect(json.feed.title).toBe(`${site()} — Night Trains`);
    expect(json.feed.link).toBe(at("/posts/categories/Night%20Trains"));
    expect(json.feed.feedUrl).toBe(at("/feed.json?category=Night%20Trains"));

    // A category with nothing published yet is known: its feed is there, empty, to follow.
    expect((await jsonFeed("?category=Empty%20Sidings")).entries).toEqual([]);
    expect((await rss("?category=empty%20sidings")).entries).toEqual([]);
  });

  it("lists a tag's published posts, matched in any case", async () => {
    const { feed, entries } = await rss("?tag=RAIL");
    expect(titlesOf(entries)).toEqual(["Overnight ferry train", "Sleeper to Vienna"]);
    expect(feed.title).toBe(`${site()} — rail`);
    expect(feed.link).toBe(at("/tags/rail"));
    expect(feed.self).toMatchObject({ "@_href": at("/rss.xml?tag=rail") });

    const json = await jsonFeed("?tag=Sea");
    expect(titlesOf(json.entries)).toEqual(["Ferry days", "Overnight ferry train"]);
    expect(json.feed.link).toBe(at("/tags/sea"));
    expect(json.feed.feedUrl).toBe(at("/feed.json?tag=sea"));
  });

  it("lists an author's published posts, named by dc:creator and never <author>", async () => {
    const { reply, feed, entries } = await rss(`?author=${writer.id}`);
    expect(titlesOf(entries)).toEqual(["Sleeper to Vienna"]);
    expect(entries.map((entry) => entry.creator)).toEqual([writer.username]);
    expect(entries.map((entry) => entry.author)).toEqual([undefined]);
    expect(reply.text).not.toContain("<author>");
    expect(feed.title).toBe(`${site()} — ${writer.username}`);
    expect(feed.link).toBe(at(`/profile/${writer.id}`));
    expect(feed.self).toMatchObject({ "@_href": at(`/rss.xml?author=${writer.id}`) });

    const json = await jsonFeed(`?author=${rower.id}`);
    expect(titlesOf(json.entries)).toEqual(["Ferry days", "Overnight ferry train"]);
    expect(json.feed.link).toBe(at(`/profile/${rower.id}`));
    expect(json.feed.feedUrl).toBe(at(`/feed.json?author=${rower.id}`));

    // A member who has published nothing has an empty feed, not a missing one.
    expect((await jsonFeed(`?author=${quiet.id}`)).entries).toEqual([]);
  });

  it("makes JSON Feed 1.1 items of posts, with absolute URLs", async () => {
    const { reply, feed, entries } = await jsonFeed(`?author=${rower.id}`);
    expect(reply.headers.get("content-type")).toBe("application/feed+json; charset=utf-8");
    expect(reply.headers.get("cache-control")).toBe("public, max-age=300");
    expect(feed.version).toBe("https://jsonfeed.org/version/1.1");
    expect(feed.description).toBe(`Posts by ${rower.username} on ${site()}.`);

    const item = entries.find((entry) => entry.title === "Overnight ferry train");
    const url = at(`/posts/details/${overnight._id}`);
    expect(item).toMatchObject({
      id: url,
      link: url,
      url,
      description: overnight.excerpt,
      published: overnight.publishedAt,
      modified: new Date(overnight.updatedAt).toISOString(),
      authors: [{ name: rower.username, url: at(`/profile/${rower.id}`) }],
      tags: ["Night Trains", "rail", "sea"],
    });
    expect(new URL(String(item?.image)).href).toBe(overnight.image.url);
    expect(String(item?.image)).toMatch(/^http:\/\//);
  });

  it("keeps the whole site's feeds as they were, JSON Feed beside RSS", async () => {
    const json = await jsonFeed("?utm_source=reader");
    expect(json.entries).toHaveLength(20);
    expect(json.feed.title).toBe(site());
    expect(json.feed.link).toBe(at("/"));
    expect(json.feed.feedUrl).toBe(at("/feed.json"));
    expect(json.entries.map((entry) => entry.id)).toContain(at(`/posts/details/${ferry._id}`));

    const { feed, entries } = await rss("");
    expect(entries).toHaveLength(20);
    expect(feed.title).toBe(site());
    expect(feed.self).toMatchObject({ "@_href": at("/rss.xml") });
    expect(entries.map((entry) => entry.link)).toContain(at(`/posts/details/${sleeper._id}`));
  });

  it("escapes a category's title in the channel and its self link", async () => {
    const { reply, feed, entries } = await rss("?category=r%26d%20%3Clab%3E");
    expect(parseXml(reply.text).name).toBe("rss");
    expect(reply.text).toContain("R&#38;D &#60;Lab&#62;</title>");
    expect(feed.title).toBe(`${site()} — R&D <Lab>`);
    expect(feed.self).toMatchObject({
      "@_href": at("/rss.xml?category=R%26D%20%3CLab%3E"),
    });
    expect(entries.length).toBeGreaterThan(0);
  });

  it("follows the posts that keep the title of a category deleted since, as its page does", async () => {
    const admin = await signInAdmin(server, api);
    const retired = await addCategory(api, admin, "Retired Lines");
    await addPost(api, writer, { title: "Last run", category: "Retired Lines" });
    expect(
      (await api.delete(`/api/categories/${retired._id}`, { token: admin.token })).status,
    ).toBe(200);
    expect(titlesOf((await jsonFeed("?category=Retired%20Lines")).entries)).toEqual(["Last run"]);
  });
});
