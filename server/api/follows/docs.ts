import { PageQuerySchema } from "../../../contract/content.js";
import { FollowStateSchema, PostListSchema } from "../../../contract/responses.js";
import type { RouteDocs } from "../openapi/route-docs.js";

/** The API reference's entries for server/api/follows/routes.ts. */
export const followDocs = {
  toggle: {
    summary: "Follow or unfollow a writer",
    description: "Toggles: following when not, not when following.",
    access: "signed-in",
    params: { id: "The writer's account id" },
    response: { status: 200, description: "Now", schema: FollowStateSchema },
    errors: { 400: "The caller's own id", 404: "No account with that id" },
  },
  feed: {
    summary: "List the published posts of the writers you follow",
    access: "signed-in",
    query: PageQuerySchema.pick({ pageNumber: true }),
    response: { status: 200, description: "6 a page, newest first", schema: PostListSchema },
  },
} satisfies Record<string, RouteDocs>;
