import { z } from "./zod.js";
import {
  CATEGORY_TITLE_MAX,
  CATEGORY_TITLE_MIN,
  COMMENT_MAX,
  IMAGE_ALT_MAX,
  COMMENT_MIN,
  CANONICAL_URL_MAX,
  META_DESCRIPTION_MAX,
  POST_DESCRIPTION_MAX,
  POST_TITLE_MAX,
  TAG_MAX,
  TAGS_MAX,
} from "./limits.js";
import { parseIsoTime } from "./publish-time.js";
import { requiredString, withLineFeeds } from "./validation.js";
import { contentMessages, isTag, normalizeTag } from "./content-rules.js";
import { seriesMessages } from "./series-rules.js";

export * from "./content-rules.js";

const m = contentMessages;

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
  /** One of the writer's series (its id; decision 032), at its end; "" or null: none. */
  series: z
    .string({ error: seriesMessages.seriesUnknown })
    .trim()
    .max(64, seriesMessages.seriesUnknown)
    .nullable()
    .optional(),
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
