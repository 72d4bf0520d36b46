import type { SiteInfo } from "../contract/site-host.js";

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

/** The head of SPEC's verification page, here and on /email-verified. */
export const verificationMeta = (site: SiteInfo) => [
  ...pageMeta(site, {
    title: "Verify your email",
    description: "E-mail verification.",
    path: "/login",
  }),
  { name: "robots", content: "noindex" },
];
