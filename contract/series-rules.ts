import { POST_TITLE_MAX } from "./limits.js";

// Series' rules and words that pages need without zod (decision 031: the browser loads zod only
// when a form is used). The schemas are in ./series.ts.

/** A series' description: a sentence or two under its title, plain text. */
export const SERIES_DESCRIPTION_MAX = 500;
/** The most posts one series holds. */
export const SERIES_POSTS_MAX = 100;

export const seriesMessages = {
  titleRequired: "Series title is required",
  titleTooLong: `Title must be at most ${String(POST_TITLE_MAX)} characters long`,
  descriptionTooLong: `Series description must be at most ${String(SERIES_DESCRIPTION_MAX)} characters long`,
  postsInvalid: "Posts must be a list of post ids",
  postsTooMany: `A series holds at most ${String(SERIES_POSTS_MAX)} posts`,
  postRepeated: "A post may be in a series once",
  postNotOwn: "No post of yours has this id",
  notFound: "Series not found",
  notOwner: "Only the writer of this series may change it",
  deleteDenied: "Only the writer of this series or an admin may delete it",
  deleted: "Series has been deleted successfully",
  /** A post's `series` naming none of its writer's series. */
  seriesUnknown: "No series of yours has this id",
} as const;
