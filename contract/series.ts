import { z } from "./zod.js";
import { POST_TITLE_MAX } from "./limits.js";
import { SERIES_DESCRIPTION_MAX, SERIES_POSTS_MAX, seriesMessages as m } from "./series-rules.js";
import { requiredString, withLineFeeds } from "./validation.js";

export * from "./series-rules.js";

// Series (DESIGN.md 11, "Pages and series"; decision 032): a writer's own posts, in their order.

const seriesFields = {
  title: requiredString(m.titleRequired).max(POST_TITLE_MAX, m.titleTooLong),
  /** Plain text; blank: none. */
  description: z
    .string({ error: m.descriptionTooLong })
    .trim()
    .overwrite(withLineFeeds)
    .max(SERIES_DESCRIPTION_MAX, m.descriptionTooLong)
    .optional(),
};

/** `POST /api/series`. */
export const SeriesCreateSchema = z.object(seriesFields);
export type SeriesCreateInput = z.infer<typeof SeriesCreateSchema>;

/**
 * `PUT /api/series/:id`: any of them; absent, kept. `posts` is the whole series in its order: a
 * post left out leaves it, one from another of the writer's series moves here.
 */
export const SeriesUpdateSchema = z.object({
  title: seriesFields.title.optional(),
  description: seriesFields.description,
  posts: z
    .array(z.string({ error: m.postsInvalid }), { error: m.postsInvalid })
    .max(SERIES_POSTS_MAX, m.postsTooMany)
    .refine((ids) => new Set(ids).size === ids.length, m.postRepeated)
    .optional(),
});
export type SeriesUpdateInput = z.infer<typeof SeriesUpdateSchema>;
