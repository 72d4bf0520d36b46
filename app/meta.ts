import type { SiteInfo } from "./context.js";

/**
 * Title, description and canonical link for a page (absolute, from PUBLIC_URL, unless the page
 * first appeared elsewhere and says where: `canonicalUrl`).
 */
export function pageMeta(
  site: SiteInfo,
  page: { title?: string; description: string; path: string; canonicalUrl?: string | null },
) {
  const title = page.title ? `${page.title} | ${site.title}` : site.title;
  return [
    { title },
    { name: "description", content: page.description.slice(0, 160) },
    {
      tagName: "link",
      rel: "canonical",
      href: page.canonicalUrl ?? `${site.publicUrl}${page.path}`,
    },
  ];
}
