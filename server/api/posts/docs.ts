import { z } from "zod";
import {
  PageQuerySchema,
  PostCreateSchema,
  PostPublishingSchema,
  PostUpdateSchema,
} from "../../../contract/content.js";
import {
  BODY_IMAGE_BYTES_PER_DAY,
  BODY_IMAGE_MAX_BYTES,
  BODY_IMAGES_PER_DAY,
  IMAGE_CREATE_MAX_BYTES,
  IMAGE_REPLACE_MAX_BYTES,
} from "../../../contract/limits.js";
import {
  BodyImageSchema,
  CountSchema,
  PostDeletedSchema,
  PostDetailSchema,
  PostListSchema,
  RevisionListSchema,
  RevisionSchema,
  TagListSchema,
} from "../../../contract/responses.js";
import { imageForm, type RouteDocs } from "../openapi/route-docs.js";

const postId = { id: "The post's id" };
const notFound = "No post with that id, or one the caller may not see (a draft of someone else)";
const notOwner = "The caller is not the post's author";
const revisionsNotFound =
  "No post with that id whose revisions the caller may read (its author's and admins')";
const revisionIds = { ...postId, revisionId: "The revision's id" };
const tooSoon = "Too many requests from this address, or too many posts from a new account";

/** The API reference's entries for server/api/posts/routes.ts. */
export const postDocs = {
  list: {
    summary: "List published posts",
    description:
      "With `pageNumber`: that page (6 posts, newest first). Without it: every post (the admin " +
      "table's call). `category` keeps that category's posts, `tag` that tag's (in any case).",
    access: "anyone",
    query: PageQuerySchema,
    response: { status: 200, description: "Posts, newest first", schema: PostListSchema },
  },
  count: {
    summary: "Count published posts",
    access: "anyone",
    response: { status: 200, description: "A bare number", schema: CountSchema },
  },
  get: {
    summary: "Read a post",
    description:
      "With its rendered `html`, its likers and its comments. A draft or scheduled post is " +
      "visible to its author and admins only.",
    access: "anyone-or-signed-in",
    params: postId,
    response: { status: 200, description: "The post", schema: PostDetailSchema },
    errors: { 404: notFound },
  },
  create: {
    summary: "Write a post",
    description:
      "`description` is Markdown. `status` is `published` by default, or `draft`, or " +
      "`scheduled` with a future `publishAt` (ISO 8601 with its zone). A draft may leave out " +
      "`image` (its `image` is then null); publishing or scheduling needs one. `tags` is " +
      "comma-separated in the form. Without an image the same fields may come as JSON (`tags` " +
      "then a list), which suits a draft.",
    access: "signed-in",
    body: z.intersection(PostCreateSchema, PostPublishingSchema),
    // Optional for a draft alone (the description says so; the service decides).
    form: imageForm(
      IMAGE_CREATE_MAX_BYTES,
      z.intersection(PostCreateSchema, PostPublishingSchema),
      true,
    ),
    response: { status: 201, description: "The new post", schema: PostDetailSchema },
    errors: { 429: tooSoon, 503: "Too many images are being processed: try again in a moment" },
  },
  bodyImage: {
    summary: "Upload an image for a post's body",
    description:
      "Answers the address to write into the Markdown. An image no post names is removed after " +
      "24 hours.",
    access: "signed-in",
    form: imageForm(BODY_IMAGE_MAX_BYTES),
    response: { status: 201, description: "The stored image", schema: BodyImageSchema },
    errors: {
      429:
        "Too many requests from this address, or the account's images of the last 24 hours " +
        `reached ${String(BODY_IMAGES_PER_DAY)} or ${String(BODY_IMAGE_BYTES_PER_DAY / 1_000_000)} MB ` +
        "(admins are not counted); Retry-After says when there is room again",
      503: "Too many images are being processed: try again in a moment",
    },
  },
  revisions: {
    summary: "List a post's revisions",
    description:
      "The title, body, category and tags the post had before each edit that changed them, " +
      "newest first, 20 a page; at least the last 50 are kept.",
    access: "signed-in",
    params: postId,
    query: PageQuerySchema.pick({ pageNumber: true }),
    response: { status: 200, description: "Revisions, newest first", schema: RevisionListSchema },
    errors: { 404: revisionsNotFound },
  },
  revision: {
    summary: "Read a revision",
    access: "signed-in",
    params: revisionIds,
    response: { status: 200, description: "The text it kept", schema: RevisionSchema },
    errors: { 404: `${revisionsNotFound}, or no such revision of this post` },
  },
  restoreRevision: {
    summary: "Restore a revision",
    description:
      "The post takes the revision's title, body, category and tags back; the text it replaces " +
      "becomes a revision too.",
    access: "signed-in",
    params: revisionIds,
    response: { status: 200, description: "The post as it is now", schema: PostDetailSchema },
    errors: { 403: notOwner, 404: `${revisionsNotFound}, or no such revision of this post` },
  },
  tags: {
    summary: "List tags",
    description: "The tags published posts carry, most used first, 20 a page.",
    access: "anyone",
    query: PageQuerySchema.pick({ pageNumber: true }),
    response: { status: 200, description: "Tags with their posts' count", schema: TagListSchema },
  },
  update: {
    summary: "Edit a post",
    description:
      "`status` and `publishAt` as on create; without `status`, the post keeps its own. A body " +
      "that names `status`, `tags`, `metaDescription` or `canonicalUrl` may leave out any other " +
      "field, which is then kept; otherwise title, category and description are required.",
    access: "signed-in",
    params: postId,
    body: z.intersection(PostUpdateSchema, PostPublishingSchema),
    response: { status: 200, description: "The post as it is now", schema: PostDetailSchema },
    errors: { 403: notOwner, 404: notFound },
  },
  replaceImage: {
    summary: "Replace a post's image",
    access: "signed-in",
    params: postId,
    form: imageForm(IMAGE_REPLACE_MAX_BYTES),
    response: { status: 200, description: "The post with its new image", schema: PostDetailSchema },
    errors: {
      403: notOwner,
      404: notFound,
      503: "Too many images are being processed: try again in a moment",
    },
  },
  like: {
    summary: "Like or unlike a post",
    description: "Toggles the caller's like.",
    access: "signed-in",
    params: postId,
    response: { status: 200, description: "The post with its likers", schema: PostDetailSchema },
    errors: { 404: notFound },
  },
  remove: {
    summary: "Delete a post",
    description: "Its author or an admin; its images and comments go with it.",
    access: "signed-in",
    params: postId,
    response: { status: 200, description: "Deleted", schema: PostDeletedSchema },
    errors: { 403: "The caller is neither the post's author nor an admin", 404: notFound },
  },
} satisfies Record<string, RouteDocs>;
