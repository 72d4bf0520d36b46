import type { SiteInfo } from "./context.js";

/** Title, description and canonical link for a page (absolute, from PUBLIC_URL). */
export function pageMeta(
  site: SiteInfo,
  page: { title?: string; description: string; path: string },
) {
  const title = page.title ? `${page.title} | ${site.title}` : site.title;
  return [
    { title },
    { name: "description", content: page.description.slice(0, 160) },
    { tagName: "link", rel: "canonical", href: `${site.publicUrl}${page.path}` },
  ];
}
