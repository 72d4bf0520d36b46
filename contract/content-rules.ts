import {
  BODY_IMAGE_BYTES_PER_DAY,
  BODY_IMAGES_PER_DAY,
  CATEGORY_TITLE_MAX,
  CATEGORY_TITLE_MIN,
  COMMENT_MAX,
  COMMENT_MIN,
  IMAGE_ALT_MAX,
  IMAGE_TYPES,
  META_DESCRIPTION_MAX,
  POST_DESCRIPTION_MAX,
  POST_TITLE_MAX,
  TAG_MAX,
  TAG_MIN,
  TAGS_MAX,
} from "./limits.js";

// Content's words and checks without zod (content.ts re-exports them): the pages a visitor reads
// load these, and zod only when a form is used.

export const contentMessages = {
  imageRequired: "image is required",
  imageTooLarge: "File size is too large",
  imageUnsupported: "Unsupported File Format",
  bodyImagesPerDay: `You can upload at most ${BODY_IMAGES_PER_DAY} images a day, please try again later`,
  bodyImageBytesPerDay: `You can upload at most ${BODY_IMAGE_BYTES_PER_DAY / 1_000_000} MB of images a day, please try again later`,
  postTitleRequired: "Post title is required",
  postCategoryRequired: "Post category is required",
  postDescriptionRequired: "Post description is required",
  titleRequired: "Title is required",
  categoryRequired: "Category is required",
  descriptionRequired: "Description is required",
  titleTooLong: `Title must be at most ${POST_TITLE_MAX} characters long`,
  imageAltTooLong: `Image description must be at most ${IMAGE_ALT_MAX} characters long`,
  descriptionTooLong: `Description must be at most ${POST_DESCRIPTION_MAX} characters long`,
  descriptionScript: "Description must not contain a script or a javascript: link",
  descriptionTooComplex:
    "Description is too complex to render; split its longest code blocks into shorter ones",
  categoryTitleTooShort: `Title is too short - should be ${CATEGORY_TITLE_MIN} chars minimum.`,
  categoryTitleTooLong: `Title is too long - should be ${CATEGORY_TITLE_MAX} chars maximum.`,
  commentTooShort: `Comment must be at least ${COMMENT_MIN} characters long`,
  commentRequired: "comment is required",
  commentTooLong: `Comment must be at most ${COMMENT_MAX} characters long`,
  postIdRequired: "Post id is required",
  parentIdInvalid: "parentId must be the id of a comment",
  parentNotFound: "The comment replied to was not found",
  parentOtherPost: "The comment replied to belongs to another post",
  tagsTooMany: `A post can have at most ${TAGS_MAX} tags`,
  tagInvalid: `Each tag must be ${TAG_MIN} to ${TAG_MAX} letters or digits, with single hyphens only between them`,
  metaDescriptionTooLong: `Meta description must be at most ${META_DESCRIPTION_MAX} characters long`,
  canonicalUrlInvalid: "Canonical URL must be an absolute http:// or https:// address",
  newsletterInvalid: 'Newsletter must be "send" or "none"',
} as const;

const m = contentMessages;

/**
 * A tag's spelling: letters of any script (with their combining marks, as Devanagari or Thai
 * write them) and digits, single hyphens only between them.
 */
const TAG_SHAPE = /^[\p{L}\p{N}][\p{L}\p{M}\p{N}]*(?:-[\p{L}\p{N}][\p{L}\p{M}\p{N}]*)*$/u;

/** A tag as stored and compared: trimmed, composed (NFC), lowercase. */
export const normalizeTag = (tag: string) => tag.trim().normalize("NFC").toLowerCase();

/** Whether a normalized tag is one a post may carry. */
export const isTag = (tag: string) =>
  tag.length >= TAG_MIN && tag.length <= TAG_MAX && TAG_SHAPE.test(tag);

const IMAGE_NAME = new RegExp(`\\.(${IMAGE_TYPES.join("|")})$`, "i");

/**
 * The browser's check of a chosen image, before it is sent: required, the size limit of the form,
 * a known extension. The server decides by the bytes; this only spares a pointless upload.
 */
export function imageFileError(file: { name: string; size: number } | undefined, maxBytes: number) {
  if (!file || file.size === 0) return m.imageRequired;
  if (file.size > maxBytes) return m.imageTooLarge;
  if (!IMAGE_NAME.test(file.name)) return m.imageUnsupported;
  return undefined;
}

/**
 * Why an image was not added to a body, naming the file and the rule it broke: the contract's
 * message (the forms' words, where the file is the only one) with the limit or the types.
 */
export function imageRefusalOf(fileName: string, message: string, maxBytes: number) {
  const rule =
    message === m.imageTooLarge
      ? ` (at most ${String(Math.floor(maxBytes / 1_000_000))} MB)`
      : message === m.imageUnsupported
        ? " (JPEG, PNG or GIF images only)"
        : "";
  return `${fileName}: ${message}${rule}`;
}
