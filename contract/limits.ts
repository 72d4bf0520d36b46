/** Business constants of SPEC.md section 9, in one place for the server and the site. */
export const PAGE_SIZE = 6;

export const USERNAME_MAX = 15;
export const PROFILE_USERNAME_MIN = 3;
export const PROFILE_PASSWORD_MIN = 6;
export const PASSWORD_MAX = 128;
export const EMAIL_MAX = 254;
export const BIO_MAX = 200;
export const SOCIAL_LINKS_MAX = 5;
export const SOCIAL_URL_MAX = 300;
export const CATEGORY_TITLE_MIN = 2;
export const CATEGORY_TITLE_MAX = 50;
export const COMMENT_MIN = 2;

export const IMAGE_CREATE_MAX_BYTES = 7_000_000;
export const IMAGE_REPLACE_MAX_BYTES = 5_242_880;
export const PROFILE_PHOTO_MAX_BYTES = 7_000_000;
/** An image in a post body: the limit of a new post's image. */
export const BODY_IMAGE_MAX_BYTES = IMAGE_CREATE_MAX_BYTES;
/**
 * What one account may upload for post bodies in any 24 hours (admins are not counted): many long
 * illustrated posts a day, while a throwaway account cannot fill the disk (uploads no post claims
 * are kept a day). Bytes are what is stored, every width of each image.
 */
export const BODY_IMAGES_PER_DAY = 200;
export const BODY_IMAGE_BYTES_PER_DAY = 200_000_000;
export const IMAGE_TYPES = ["jpg", "jpeg", "png", "gif", "jfif"] as const;

export const POST_TITLE_MAX = 200;
/** The writer's description of a post's cover image (its alt text). */
export const IMAGE_ALT_MAX = 200;
export const POST_DESCRIPTION_MAX = 20_000;
export const COMMENT_MAX = 2_000;
/** Tags of a post (DESIGN.md 10, "Writing"): how many, and each one's length in characters. */
export const TAGS_MAX = 5;
export const TAG_MIN = 2;
export const TAG_MAX = 30;
/** Tags a page of `GET /api/tags` lists. */
export const TAGS_PAGE_SIZE = 20;
/** Revisions a page of `GET /api/posts/:id/revisions` lists. */
export const REVISIONS_PAGE_SIZE = 20;
/** What search engines and share cards show for a post, at most (their usual snippet). */
export const META_DESCRIPTION_MAX = 160;
export const CANONICAL_URL_MAX = 2_000;

/** The longest search text taken, in characters (after trimming). */
export const SEARCH_MAX = 200;
/**
 * The most matches a search counts, and ranks on SQLite (decision 015): past it, `total` says this
 * many (the site shows "1000+"), and SQLite ranks the most recently indexed this many.
 */
export const SEARCH_MATCHES_MAX = 1000;
