/**
 * The `<link rel="alternate">` of a page's own feeds, RSS and JSON Feed (DESIGN.md 10), as meta
 * descriptors: a route's `links` export cannot see its loader's data, its `meta` can. `query`
 * names the feed's filter, already encoded (`tag=trains`).
 */
export const feedLinks = (query: string, name: string) => [
  {
    tagName: "link",
    rel: "alternate",
    type: "application/rss+xml",
    href: `/rss.xml?${query}`,
    title: `${name} (RSS)`,
  },
  {
    tagName: "link",
    rel: "alternate",
    type: "application/feed+json",
    href: `/feed.json?${query}`,
    title: `${name} (JSON Feed)`,
  },
];
