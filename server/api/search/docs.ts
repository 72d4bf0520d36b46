import { SearchResultsSchema } from "../../../contract/responses.js";
import { SearchQuerySchema } from "../../../contract/search.js";
import type { RouteDocs } from "../openapi/route-docs.js";

/** The API reference's entries for server/api/search/routes.ts. */
export const searchDocs = {
  search: {
    summary: "Search published posts",
    description:
      'Titles, bodies, categories and author names, best match first; words match by stem and the last by prefix; `"exact phrase"` and `-word` work. 6 posts a page.',
    access: "anyone",
    query: SearchQuerySchema,
    response: { status: 200, description: "A page of matches", schema: SearchResultsSchema },
  },
} satisfies Record<string, RouteDocs>;
