import { z } from "./zod.js";
import { contentMessages } from "./content.js";
import { POST_DESCRIPTION_MAX } from "./limits.js";
import { withLineFeeds } from "./validation.js";

/**
 * The editor's preview of a body: the text as typed (a blank one previews as nothing) and, when
 * editing, the post, whose format decides how it renders.
 */
export const PostPreviewSchema = z.object({
  description: z
    .string()
    .overwrite(withLineFeeds)
    .max(POST_DESCRIPTION_MAX, contentMessages.descriptionTooLong)
    .default(""),
  postId: z.string().max(100).optional(),
});
export type PostPreviewInput = z.infer<typeof PostPreviewSchema>;
