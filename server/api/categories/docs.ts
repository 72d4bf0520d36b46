import { CategoryCreateSchema, PageQuerySchema } from "../../../contract/content.js";
import {
  CategoryDeletedSchema,
  CategoryListSchema,
  CategorySchema,
  PostListSchema,
} from "../../../contract/responses.js";
import type { RouteDocs } from "../openapi/route-docs.js";

/** The API reference's entries for server/api/categories/routes.ts. */
export const categoryDocs = {
  list: {
    summary: "List the categories",
    access: "anyone",
    response: { status: 200, description: "Every category, by title", schema: CategoryListSchema },
  },
  create: {
    summary: "Add a category",
    access: "admin",
    body: CategoryCreateSchema,
    response: { status: 201, description: "The new category", schema: CategorySchema },
    errors: { 409: "A category of that title exists (regardless of case)" },
  },
  remove: {
    summary: "Delete a category",
    description: "Its posts stay and keep the title.",
    access: "admin",
    params: { id: "The category's id" },
    response: { status: 200, description: "Deleted", schema: CategoryDeletedSchema },
    errors: { 404: "No category with that id" },
  },
  posts: {
    summary: "List a category's posts, a page at a time",
    access: "anyone",
    params: { category: "The category's title" },
    query: PageQuerySchema.pick({ pageNumber: true }),
    response: {
      status: 200,
      description: "Published posts, 6 a page, newest first",
      schema: PostListSchema,
    },
  },
} satisfies Record<string, RouteDocs>;
