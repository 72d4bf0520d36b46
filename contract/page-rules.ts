import { META_DESCRIPTION_MAX, POST_TITLE_MAX } from "./limits.js";

// Static pages' rules and words that pages need without zod (decision 031: the browser loads zod
// only when a form is used). The schemas are in ./pages.ts.

/** The longest slug: an address people type and read. */
export const PAGE_SLUG_MAX = 80;

/** Lowercase letters and digits, in words joined by single hyphens. */
const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export const isPageSlug = (value: string) => value.length <= PAGE_SLUG_MAX && SLUG.test(value);

/**
 * The slug a title suggests: accents dropped, lowercase, runs of anything else a hyphen, cut at a
 * hyphen within the longest slug ("" when the title has no letter or digit of a-z and 0-9).
 */
export function slugFrom(title: string) {
  const words = title
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  if (words.length <= PAGE_SLUG_MAX) return words;
  const cut = words.slice(0, PAGE_SLUG_MAX + 1);
  const end = cut.lastIndexOf("-");
  return (end > 0 ? cut.slice(0, end) : cut.slice(0, PAGE_SLUG_MAX)).replace(/-+$/, "");
}

export const pageMessages = {
  titleRequired: "Page title is required",
  titleTooLong: `Title must be at most ${String(POST_TITLE_MAX)} characters long`,
  slugRequired: "Page slug is required",
  slugInvalid: `A slug may use lowercase letters, digits and single hyphens between them, at most ${String(PAGE_SLUG_MAX)} characters`,
  slugTaken: "Another page already has this slug",
  descriptionRequired: "Page text is required",
  metaDescriptionTooLong: `Meta description must be at most ${String(META_DESCRIPTION_MAX)} characters long`,
  statusInvalid: "Status must be draft or published",
  changedElsewhere: "This page was changed elsewhere since you opened it: reload to see it",
  adminsOnly: "Only admins can write pages",
  notFound: "Page not found",
  created: "Page created",
  saved: "Page saved",
  deleted: "Page deleted",
  revisionNotFound: "Revision not found",
  restored: "Revision restored",
} as const;
