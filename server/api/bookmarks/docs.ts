import { PageQuerySchema } from "../../../contract/content.js";
import { BookmarkStateSchema, PostListSchema } from "../../../contract/responses.js";
import type { RouteDocs } from "../openapi/route-docs.js";

/** The API reference's entries for server/api/bookmarks/routes.ts. */
export const bookmarkDocs = {
  toggle: {
    summary: "Save a post for later, or stop saving it",
    description: "Toggles. Only published posts can be saved.",
    access: "signed-in",
    params: { id: "A post's id" },
    response: { status: 200, description: "Now", schema: BookmarkStateSchema },
    errors: { 404: "No published post with that id" },
  },
  list: {
    summary: "List your saved posts",
    access: "signed-in",
    query: PageQuerySchema.pick({ pageNumber: true }),
    response: {
      status: 200,
      description: "6 a page, most recently saved first",
      schema: PostListSchema,
    },
  },
} satisfies Record<string, RouteDocs>;
