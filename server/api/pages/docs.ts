import { z } from "zod";
import { PageQuerySchema } from "../../../contract/content.js";
import { PageCreateSchema, PageUpdateSchema } from "../../../contract/pages.js";
import {
  PageDeletedSchema,
  PageListSchema,
  PageRevisionSchema,
  PageSchema,
  RevisionListSchema,
  ValidationErrorSchema,
  ErrorSchema,
} from "../../../contract/responses.js";
import type { RouteDocs } from "../openapi/route-docs.js";

const pageId = { page: "The page's id" };
const noPage = "No page with that id";
const revisionsOf = { id: "The page's id" };
const revisionIds = { ...revisionsOf, revisionId: "The revision's id" };

/** The API reference's entries for server/api/pages/routes.ts (DESIGN.md 11, "Pages and series"). */
export const pageDocs = {
  list: {
    summary: "List the static pages",
    description: "Published pages by title; an admin's call lists drafts too. No bodies.",
    access: "anyone-or-signed-in",
    response: { status: 200, description: "Pages, by title", schema: PageListSchema },
  },
  get: {
    summary: "Read a static page by its slug",
    description:
      "A slug the page had before a rename answers with the page as it is now (its `slug` is " +
      "the current one; the site's `/pages/<old>` redirects). A draft is an admin's alone.",
    access: "anyone-or-signed-in",
    params: { page: "The page's slug, or one it had" },
    response: { status: 200, description: "The page", schema: PageSchema },
    errors: { 404: "No page with that slug that the caller may see" },
  },
  create: {
    summary: "Write a static page",
    description: "`description` is its Markdown body. `status` is `published` unless `draft`.",
    access: "admin",
    body: PageCreateSchema,
    response: { status: 201, description: "The new page", schema: PageSchema },
    errors: { 409: "Another page has that slug now" },
    errorAnswers: { 409: ValidationErrorSchema },
  },
  update: {
    summary: "Change a static page",
    description:
      "Any of the fields; absent, kept. A new slug keeps the old one as a redirect. With " +
      "`updatedAt` (the page's as read), a change made since is refused (409) rather than " +
      "overwritten. The title and text it replaces are kept as a revision.",
    access: "admin",
    params: pageId,
    body: PageUpdateSchema,
    response: { status: 200, description: "The page as saved", schema: PageSchema },
    errors: {
      404: noPage,
      409: "Another page has that slug (naming `slug`), or the page changed since `updatedAt`",
    },
    errorAnswers: { 409: z.union([ValidationErrorSchema, ErrorSchema]) },
  },
  remove: {
    summary: "Delete a static page",
    description: "Its revisions and old slugs go with it.",
    access: "admin",
    params: pageId,
    response: { status: 200, description: "Deleted", schema: PageDeletedSchema },
    errors: { 404: noPage },
  },
  revisions: {
    summary: "List a page's revisions",
    access: "admin",
    params: revisionsOf,
    query: PageQuerySchema.pick({ pageNumber: true }),
    response: { status: 200, description: "Newest first", schema: RevisionListSchema },
    errors: { 404: noPage },
  },
  revision: {
    summary: "Read one revision of a page",
    access: "admin",
    params: revisionIds,
    response: { status: 200, description: "The text it kept", schema: PageRevisionSchema },
    errors: { 404: "No such page, or no such revision of it" },
  },
  restore: {
    summary: "Restore a page's revision",
    description: "The page takes back the revision's title and text; what it replaces is kept too.",
    access: "admin",
    params: revisionIds,
    response: { status: 200, description: "The page as saved", schema: PageSchema },
    errors: { 404: "No such page, or no such revision of it" },
  },
} satisfies Record<string, RouteDocs>;
