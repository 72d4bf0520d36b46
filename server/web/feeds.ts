import type { FastifyInstance, FastifyReply } from "fastify";
import { listCategories } from "../../core/categories/categories-service.js";
import type { CoreDeps } from "../../core/deps.js";
import { withAbsoluteAddresses } from "../../core/posts/body.js";
import { listPostStamps, publishedBodiesOf } from "../../core/posts/posts-service.js";
import type { PostSummary } from "../../core/posts/presenters.js";
import type { Config } from "../config.js";
import type { SiteSettingsReader } from "./site-settings.js";
import type { ContentVersion } from "./content-version.js";
import { selectFeed, topicQuery, type FeedTopic } from "./feed-selection.js";
import { cdata, xmlSafe, xmlText } from "./xml-text.js";
import {
  categoryPath,
  pagePath,
  postPath,
  profilePath,
  seriesPath,
} from "../../contract/page-paths.js";
import { listPublishedPageStamps } from "../../core/pages/pages-service.js";
import { listPublishedSeriesStamps } from "../../core/series/series-service.js";

/** The sitemap protocol's limit of URLs in one file: past it, `/sitemap.xml` is an index. */
export const SITEMAP_URLS_MAX = 50_000;

/**
 * A built sitemap is kept this long at most, as its Cache-Control says anyone may keep it: a
 * change made through another instance (without Redis each has its own content version) shows
 * within that time, like the pages' 30 s.
 */
const SITEMAP_MAX_AGE_MS = 300_000;

interface Sitemaps {
  /** `/sitemap.xml`: every URL, or an index of the files below when there are too many. */
  main: string;
  /** `/sitemap-1.xml`, `/sitemap-2.xml`, …; none when the main file holds every URL. */
  parts: string[];
}

export interface FeedOptions {
  /** URLs per sitemap file (tests lower it rather than seed 50,000 posts). */
  sitemapUrlsMax?: number | undefined;
  /** The site's title and welcome as admins saved them (SITE_* when absent). */
  siteSettings?: SiteSettingsReader | undefined;
}

const urlset = (urls: string[]) =>
  [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
    ...urls,
    "</urlset>",
  ].join("\n");

function splitSitemaps(base: string, urls: string[], urlsMax: number): Sitemaps {
  if (urls.length <= urlsMax) return { main: urlset(urls), parts: [] };
  const parts: string[] = [];
  for (let start = 0; start < urls.length; start += urlsMax) {
    parts.push(urlset(urls.slice(start, start + urlsMax)));
  }
  const main = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
    ...parts.map(
      (_part, index) =>
        `<sitemap><loc>${xmlText(`${base}/sitemap-${String(index + 1)}.xml`)}</loc></sitemap>`,
    ),
    "</sitemapindex>",
  ].join("\n");
  return { main, parts };
}

/**
 * `make`'s result, kept until the content version moves on (or `maxAgeMs` pass), and made afresh
 * when the version cannot be known. Tagged with the version read before `make` reads the
 * database, so a build racing a write is never kept as current; callers at once share one build.
 */
function keptPerVersion<T>(
  contentVersion: ContentVersion,
  maxAgeMs: number,
  make: () => Promise<T>,
): () => Promise<T> {
  let kept: { version: string; madeAt: number; value: Promise<T> } | undefined;
  return async () => {
    const version = await contentVersion.current();
    if (version === undefined) return make();
    const now = Date.now();
    if (kept && kept.version === version && now - kept.madeAt <= maxAgeMs) return kept.value;
    const value = make();
    const entry = { version, madeAt: now, value };
    kept = entry;
    // A build that failed is not kept: the next request tries again.
    value.catch(() => {
      if (kept === entry) kept = undefined;
    });
    return value;
  };
}

const sendDocument = (reply: FastifyReply, type: string, body: string) =>
  reply.type(`${type}; charset=utf-8`).header("cache-control", "public, max-age=300").send(body);

/** What a feed's title and description need of the site. */
interface SiteFacts {
  title: string;
  welcome: string;
}

/** The site's title, and what a filtered feed follows: "Blog — Travel". */
const feedTitle = (site: SiteFacts, topic: FeedTopic | undefined) =>
  topic ? `${site.title} — ${topic.name}` : site.title;

const feedDescription = (site: SiteFacts, topic: FeedTopic | undefined) =>
  topic ? `Posts ${topic.phrase} on ${site.title}.` : site.welcome;

const isoDate = (date: string) => new Date(date).toISOString();

/** A post as JSON Feed 1.1 has items (https://www.jsonfeed.org/version/1.1/), URLs absolute. */
function jsonFeedItem(base: string, post: PostSummary) {
  const url = `${base}${postPath(post._id)}`;
  return {
    id: url,
    url,
    title: post.title,
    summary: post.excerpt,
    content_text: post.excerpt,
    ...(post.image ? { image: new URL(post.image.url, base).href } : {}),
    date_published: isoDate(post.publishedAt ?? post.createdAt),
    date_modified: isoDate(post.updatedAt),
    // Named, with their profile: e-mail addresses stay private (as RSS's dc:creator).
    authors: [{ name: post.user.username, url: `${base}${profilePath(post.user._id)}` }],
    tags: [post.category, ...post.tags],
  };
}

/**
 * robots.txt, the sitemap, and feeds of the latest posts (RSS and JSON Feed, of the whole site or
 * one category, tag or author), with absolute URLs.
 */
export function feedRoutes(
  app: FastifyInstance,
  deps: CoreDeps,
  config: Config,
  contentVersion: ContentVersion,
  options: FeedOptions = {},
) {
  const base = config.publicUrl;
  const urlsMax = options.sitemapUrlsMax ?? SITEMAP_URLS_MAX;

  app.get("/robots.txt", (_request, reply) =>
    reply
      .type("text/plain; charset=utf-8")
      .header("cache-control", "public, max-age=3600")
      .send(
        [
          "User-agent: *",
          "Allow: /",
          "Disallow: /api/",
          "Disallow: /admin-dashboard",
          "Disallow: /profile/",
          `Sitemap: ${base}/sitemap.xml`,
          "",
        ].join("\n"),
      ),
  );

  // Every post is read to build it: built once per content version, not once per crawler visit.
  const sitemaps = keptPerVersion(contentVersion, SITEMAP_MAX_AGE_MS, async () => {
    const [posts, categories, pages, series] = await Promise.all([
      listPostStamps(deps),
      listCategories(deps),
      listPublishedPageStamps(deps),
      listPublishedSeriesStamps(deps),
    ]);
    // A category's page is worth a crawler's visit only once it lists a published post.
    const used = new Set(posts.map((post) => post.category.trim().toLowerCase()));
    const url = (path: string, lastmod?: string) =>
      `<url><loc>${xmlText(`${base}${path}`)}</loc>${lastmod ? `<lastmod>${xmlText(lastmod)}</lastmod>` : ""}</url>`;
    const urls = [
      url("/"),
      url("/posts"),
      ...categories
        .filter((c) => used.has(c.title.trim().toLowerCase()))
        .map((c) => url(categoryPath(xmlSafe(c.title)))),
      ...posts.map((p) => url(postPath(p.id), p.updated_at)),
      ...pages.map((p) => url(pagePath(p.slug), p.updated_at)),
      // A series once readers can read one of its posts (decision 032).
      ...series.map((s) => url(seriesPath(s.id), s.updatedAt)),
    ];
    return splitSitemaps(base, urls, urlsMax);
  });

  app.get("/sitemap.xml", async (_request, reply) =>
    sendDocument(reply, "application/xml", (await sitemaps()).main),
  );

  app.get<{ Params: { part: string } }>("/sitemap-:part(^\\d+).xml", async (request, reply) => {
    const { parts } = await sitemaps();
    const part = /^[1-9]\d{0,8}$/.test(request.params.part)
      ? parts[Number(request.params.part) - 1]
      : undefined;
    if (part === undefined) return reply.status(404).send({ message: "Not found" });
    return sendDocument(reply, "application/xml", part);
  });

  const siteNow = async () => (options.siteSettings ? options.siteSettings() : config.site);

  app.get("/rss.xml", async (request, reply) => {
    const [site, { posts, topic }] = await Promise.all([
      siteNow(),
      selectFeed(deps, request.query),
    ]);
    const bodies = await publishedBodiesOf(
      deps,
      posts.map((post) => post._id),
    );
    const items = posts.map(
      (post) => `<item>
<title>${xmlText(post.title)}</title>
<link>${base}${postPath(post._id)}</link>
<guid isPermaLink="true">${base}${postPath(post._id)}</guid>
<pubDate>${new Date(post.publishedAt ?? post.createdAt).toUTCString()}</pubDate>
<category>${xmlText(post.category)}</category>
<dc:creator>${xmlText(post.user.username)}</dc:creator>
<description>${xmlText(post.excerpt)}</description>
<content:encoded>${cdata(withAbsoluteAddresses(bodies.get(post._id) ?? "", base))}</content:encoded>
</item>`,
    );
    const body = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:content="http://purl.org/rss/1.0/modules/content/">
<channel>
<title>${xmlText(feedTitle(site, topic))}</title>
<link>${xmlText(`${base}${topic?.path ?? "/"}`)}</link>
<description>${xmlText(feedDescription(site, topic))}</description>
<atom:link href="${xmlText(`${base}/rss.xml${topicQuery(topic)}`)}" rel="self" type="application/rss+xml"/>
${items.join("\n")}
</channel>
</rss>`;
    return sendDocument(reply, "application/rss+xml", body);
  });

  app.get("/feed.json", async (request, reply) => {
    const [site, { posts, topic }] = await Promise.all([
      siteNow(),
      selectFeed(deps, request.query),
    ]);
    const feed = {
      version: "https://jsonfeed.org/version/1.1",
      title: feedTitle(site, topic),
      home_page_url: `${base}${topic?.path ?? "/"}`,
      feed_url: `${base}/feed.json${topicQuery(topic)}`,
      description: feedDescription(site, topic),
      items: posts.map((post) => jsonFeedItem(base, post)),
    };
    return sendDocument(reply, "application/feed+json", JSON.stringify(feed));
  });
}
