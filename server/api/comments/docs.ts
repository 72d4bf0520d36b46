import { CommentCreateSchema, CommentUpdateSchema } from "../../../contract/content.js";
import {
  CommentDeletedSchema,
  CommentListSchema,
  CommentSchema,
  CommentUpdatedSchema,
} from "../../../contract/responses.js";
import type { RouteDocs } from "../openapi/route-docs.js";

const commentId = { id: "The comment's id" };
const notFound = "No comment with that id";

/** The API reference's entries for server/api/comments/routes.ts. */
export const commentDocs = {
  list: {
    summary: "List every comment",
    access: "admin",
    response: { status: 200, description: "Comments, newest first", schema: CommentListSchema },
  },
  create: {
    summary: "Comment on a post, or reply to a comment",
    description:
      "`parentId` names a comment of the same post: one level of replies, so a reply to a reply " +
      "joins its thread.",
    access: "signed-in",
    body: CommentCreateSchema,
    response: { status: 201, description: "The new comment", schema: CommentSchema },
    errors: {
      404: "No post with that id",
      429: "Too many requests from this address, or too many comments from a new account",
    },
  },
  update: {
    summary: "Edit a comment",
    access: "signed-in",
    params: commentId,
    body: CommentUpdateSchema,
    response: {
      status: 200,
      description: "The comment and a message",
      schema: CommentUpdatedSchema,
    },
    errors: { 403: "The caller is not the comment's author", 404: notFound },
  },
  remove: {
    summary: "Delete a comment",
    description: 'Its author or an admin. Its replies stay, under "This comment was deleted".',
    access: "signed-in",
    params: commentId,
    response: { status: 200, description: "Deleted", schema: CommentDeletedSchema },
    errors: { 403: "The caller is neither the comment's author nor an admin", 404: notFound },
  },
} satisfies Record<string, RouteDocs>;
