import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo } from "../../bench/seed.js";
import { buildUser, signInAdmin, type TestUser } from "../support/factories.js";
import { client, type Client } from "../support/http.js";
import { addCategory, addPost } from "../support/post-fixtures.js";
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
  server = await startTestServer({}, { onQuery: (sql) => queries.push(sql) });
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
    expect(description).toMatch(/^A heading Some bold text and a link\. More words\. .*…$/);
    expect(description?.length).toBeLessThanOrEqual(200);
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
