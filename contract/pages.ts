import { z } from "./zod.js";
import { META_DESCRIPTION_MAX, POST_DESCRIPTION_MAX, POST_TITLE_MAX } from "./limits.js";
import { isPageSlug, pageMessages as m } from "./page-rules.js";
import { requiredString, withLineFeeds } from "./validation.js";

export * from "./page-rules.js";

// Static pages (DESIGN.md 11, "Pages and series"; decision 032). `description` is the Markdown
// body, named as a post's is.

const slugField = requiredString(m.slugRequired)
  .transform((value) => value.toLowerCase())
  .refine(isPageSlug, m.slugInvalid);

const pageFields = {
  title: requiredString(m.titleRequired).max(POST_TITLE_MAX, m.titleTooLong),
  slug: slugField,
  description: requiredString(m.descriptionRequired)
    .overwrite(withLineFeeds)
    .max(
      POST_DESCRIPTION_MAX,
      `Text must be at most ${String(POST_DESCRIPTION_MAX)} characters long`,
    ),
  /** Optional; blank clears it (the page's first words then describe it). */
  metaDescription: z
    .string({ error: m.metaDescriptionTooLong })
    .trim()
    .max(META_DESCRIPTION_MAX, m.metaDescriptionTooLong)
    .optional(),
  /** A draft is seen by admins alone; published by default. */
  status: z.enum(["draft", "published"], { error: m.statusInvalid }).optional(),
};

/** `POST /api/pages`. */
export const PageCreateSchema = z.object(pageFields);
export type PageCreateInput = z.infer<typeof PageCreateSchema>;

/**
 * `PUT /api/pages/:id`: any of the fields; absent, kept. `updatedAt` (the page's as it was read)
 * makes the save refuse to write over a change made since (409).
 */
export const PageUpdateSchema = z.object({
  ...z.object(pageFields).partial().shape,
  updatedAt: z.string().optional(),
});
export type PageUpdateInput = z.infer<typeof PageUpdateSchema>;
