import { z } from "zod";
import {
  BODY_IMAGE_BYTES_PER_DAY,
  BODY_IMAGES_PER_DAY,
  CATEGORY_TITLE_MAX,
  CATEGORY_TITLE_MIN,
  COMMENT_MAX,
  IMAGE_ALT_MAX,
  IMAGE_TYPES,
  COMMENT_MIN,
  CANONICAL_URL_MAX,
  META_DESCRIPTION_MAX,
  POST_DESCRIPTION_MAX,
  POST_TITLE_MAX,
  TAG_MAX,
  TAG_MIN,
  TAGS_MAX,
} from "./limits.js";
import { parseIsoTime } from "./publish-time.js";
import { requiredString, withLineFeeds } from "./validation.js";

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

/**
 * `tags`: an array (JSON) or one comma-separated text (a form), normalized, duplicates merged in
 * the writer's order; blank entries are dropped, so "" or [] clears them.
 */
const tagsField = z
  .union([z.string().max(TAGS_MAX * (TAG_MAX + 2) * 4), z.array(z.string()).max(TAGS_MAX * 4)], {
    error: m.tagInvalid,
  })
  .transform((value, context) => {
    const given = (typeof value === "string" ? value.split(",") : value).map(normalizeTag);
    const tags = [...new Set(given.filter((tag) => tag !== ""))];
    if (tags.some((tag) => !isTag(tag))) {
      context.addIssue({ code: "custom", message: m.tagInvalid });
      return z.NEVER;
    }
    if (tags.length > TAGS_MAX) {
      context.addIssue({ code: "custom", message: m.tagsTooMany });
      return z.NEVER;
    }
    return tags;
  });

/** An absolute http(s) address, or blank (none). */
const isCanonicalUrl = (value: string) => {
  if (value === "") return true;
  if (!URL.canParse(value)) return false;
  const { protocol, hostname } = new URL(value);
  return (protocol === "http:" || protocol === "https:") && hostname !== "";
};

/**
 * The fields DESIGN.md 10 ("Writing") adds to a post, each optional: absent on an edit, kept;
 * blank, cleared.
 */
export const postExtraFields = {
  tags: tagsField.optional(),
  metaDescription: z
    .string({ error: m.metaDescriptionTooLong })
    .trim()
    .max(META_DESCRIPTION_MAX, m.metaDescriptionTooLong)
    .optional(),
  canonicalUrl: z
    .string({ error: m.canonicalUrlInvalid })
    .trim()
    .max(CANONICAL_URL_MAX, m.canonicalUrlInvalid)
    .refine(isCanonicalUrl, m.canonicalUrlInvalid)
    .optional(),
  /** Whether the post is mailed to subscribers when it first goes public (decision 028). */
  newsletter: z.enum(["send", "none"], { error: m.newsletterInvalid }).optional(),
};

/** Whether a post edit names any field of DESIGN.md 10 ("Writing"): it may then leave out the rest. */
export const namesWritingFields = (body: object) =>
  ["status", ...Object.keys(postExtraFields)].some((field) => field in body);

const postFields = (messages: { title: string; category: string; description: string }) =>
  z.object({
    title: requiredString(messages.title).max(POST_TITLE_MAX, m.titleTooLong),
    category: requiredString(messages.category).max(CATEGORY_TITLE_MAX, messages.category),
    description: requiredString(messages.description)
      .overwrite(withLineFeeds)
      .max(POST_DESCRIPTION_MAX, m.descriptionTooLong),
    /** Optional; blank clears it (the title then describes the image). Absent on an edit: kept. */
    imageAlt: z
      .string({ error: m.imageAltTooLong })
      .trim()
      .max(IMAGE_ALT_MAX, m.imageAltTooLong)
      .optional(),
    ...postExtraFields,
  });

/** The text fields of the create-post form; the image is checked beside it. */
export const PostCreateSchema = postFields({
  title: m.postTitleRequired,
  category: m.postCategoryRequired,
  description: m.postDescriptionRequired,
});
export type PostCreateInput = z.infer<typeof PostCreateSchema>;

export const PostUpdateSchema = postFields({
  title: m.titleRequired,
  category: m.categoryRequired,
  description: m.descriptionRequired,
});
export type PostUpdateInput = z.infer<typeof PostUpdateSchema>;

/** An edit that names a status or a field of DESIGN.md 10 ("Writing"): what it leaves out is kept. */
export const PostPartialUpdateSchema = PostUpdateSchema.partial();

export const CategoryCreateSchema = z.object({
  title: requiredString(m.titleRequired)
    .min(CATEGORY_TITLE_MIN, m.categoryTitleTooShort)
    .max(CATEGORY_TITLE_MAX, m.categoryTitleTooLong),
});

export const CommentCreateSchema = z.object({
  text: z
    .string({ error: m.commentTooShort })
    .trim()
    .min(COMMENT_MIN, m.commentTooShort)
    .max(COMMENT_MAX, m.commentTooLong),
  postId: requiredString(m.postIdRequired),
  /** The comment replied to: its thread (or itself, at the top) takes the reply. */
  parentId: z.string({ error: m.parentIdInvalid }).nullish(),
});

export const CommentUpdateSchema = z.object({
  text: requiredString(m.commentRequired).max(COMMENT_MAX, m.commentTooLong),
});

/** `?pageNumber=n`: a whole number from 1; absent means "no paging". */
export const PageQuerySchema = z.object({
  pageNumber: z
    .string()
    .regex(/^[1-9]\d{0,8}$/, "pageNumber must be a whole number from 1")
    .transform(Number)
    .optional(),
  category: z.string().max(CATEGORY_TITLE_MAX).optional(),
  /** One tag's posts (matched case-insensitively). */
  tag: z
    .string()
    .max(TAG_MAX * 4)
    .optional(),
});

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

/** A post's state (decision 011): only `published` posts are shown to anyone but their author. */
export const POST_STATUSES = ["published", "draft", "scheduled"] as const;
export type PostStatus = (typeof POST_STATUSES)[number];

export const publishingMessages = {
  statusUnknown: "Status must be published, draft or scheduled",
  publishAtRequired: "Publish time is required to schedule a post",
  publishAtInvalid: "Publish time must be an ISO date and time with its time zone",
  publishAtPast: "Publish time must be in the future",
  ownStatusUnknown: "Status must be draft or scheduled",
} as const;

const pm = publishingMessages;

/**
 * `status` and `publishAt` of POST and PUT /api/posts. Absent status: published on create, kept on
 * update. `publishAt` is read only with `scheduled`; whether it is still ahead is the service's
 * check (it has the clock).
 */
export const PostPublishingSchema = z
  .object({
    status: z.enum(POST_STATUSES, { error: pm.statusUnknown }).optional(),
    publishAt: z.string({ error: pm.publishAtInvalid }).optional(),
  })
  .transform((input, context) => {
    if (input.status !== "scheduled") return { status: input.status, publishAt: undefined };
    const text = input.publishAt?.trim() ?? "";
    const publishAt = text === "" ? undefined : parseIsoTime(text);
    if (!publishAt) {
      context.addIssue({
        code: "custom",
        path: ["publishAt"],
        message: text === "" ? pm.publishAtRequired : pm.publishAtInvalid,
      });
      return z.NEVER;
    }
    return { status: input.status, publishAt };
  });
export type PostPublishingInput = z.infer<typeof PostPublishingSchema>;

/** `GET /api/users/me/posts?status=draft|scheduled&pageNumber=n`. */
export const OwnPostsQuerySchema = z.object({
  status: z.enum(["draft", "scheduled"], { error: pm.ownStatusUnknown }),
  pageNumber: PageQuerySchema.shape.pageNumber,
});
