import type { FastifyInstance } from "fastify";
import { listCategories } from "../../core/categories/categories-service.js";
import type { CoreDeps } from "../../core/deps.js";
import { listPosts, listPostStamps } from "../../core/posts/posts-service.js";
import type { Config } from "../config.js";

const RSS_ITEMS = 20;

const xml = (text: string) =>
  text
    .replace(/[<>&'"]/g, (c) => `&#${String(c.codePointAt(0))};`)
    .replace(
      // Control characters are not allowed in XML 1.0 at all.
      // eslint-disable-next-line no-control-regex
      /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g,
      "",
    );

/** robots.txt, sitemap.xml and an RSS feed of the latest posts, with absolute URLs. */
export function feedRoutes(app: FastifyInstance, deps: CoreDeps, config: Config) {
  const base = config.publicUrl;

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

  app.get("/sitemap.xml", async (_request, reply) => {
    const [posts, categories] = await Promise.all([listPostStamps(deps), listCategories(deps)]);
    const url = (path: string, lastmod?: string) =>
      `<url><loc>${xml(`${base}${path}`)}</loc>${lastmod ? `<lastmod>${lastmod}</lastmod>` : ""}</url>`;
    const body = [
      '<?xml version="1.0" encoding="UTF-8"?>',
      '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
      url("/"),
      url("/posts"),
      ...categories.map((c) => url(`/posts/categories/${encodeURIComponent(c.title)}`)),
      ...posts.map((p) => url(`/posts/details/${p.id}`, p.updated_at)),
      "</urlset>",
    ].join("\n");
    return reply
      .type("application/xml; charset=utf-8")
      .header("cache-control", "public, max-age=300")
      .send(body);
  });

  app.get("/rss.xml", async (_request, reply) => {
    const posts = (await listPosts(deps, {}, 1, RSS_ITEMS)).map(
      (post) => `<item>
<title>${xml(post.title)}</title>
<link>${base}/posts/details/${post._id}</link>
<guid isPermaLink="true">${base}/posts/details/${post._id}</guid>
<pubDate>${new Date(post.createdAt).toUTCString()}</pubDate>
<category>${xml(post.category)}</category>
<author>${xml(post.user.username)}</author>
<description>${xml(post.description.slice(0, 500))}</description>
</item>`,
    );
    const body = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom">
<channel>
<title>${xml(config.site.title)}</title>
<link>${base}/</link>
<description>${xml(config.site.welcome)}</description>
<atom:link href="${base}/rss.xml" rel="self" type="application/rss+xml"/>
${posts.join("\n")}
</channel>
</rss>`;
    return reply
      .type("application/rss+xml; charset=utf-8")
      .header("cache-control", "public, max-age=300")
      .send(body);
  });
}
