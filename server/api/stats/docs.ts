import { z } from "zod";
import { MyStatsSchema, PostStatsSchema, SiteStatsSchema } from "../../../contract/responses.js";
import { STATS_RANGES } from "../../../contract/stats.js";
import type { RouteDocs } from "../openapi/route-docs.js";

const RangeQuery = z.object({
  days: z
    .enum(STATS_RANGES.map(String) as [string, ...string[]])
    .optional()
    .describe("The last 7, 30 (when left out) or 90 days, today included (UTC)"),
});

const counting =
  "Views of published post pages counted on the server (cached pages included), bots, prefetches, HEAD requests and the author's own views left out; visitors are unique a day, from a hash of a daily salt thrown away when the day ends (no cookie, no address or user agent stored). Counts reach the API within a minute.";

/** The API reference's entries for server/api/stats/routes.ts. */
export const statsDocs = {
  post: {
    summary: "Read one post's stats",
    description: `Its author or an admin; anyone else gets 404. ${counting}`,
    access: "signed-in",
    params: { id: "The post's id" },
    query: RangeQuery,
    response: { status: 200, description: "The post's numbers", schema: PostStatsSchema },
    errors: { 404: "No post with that id that the caller wrote (an admin reads any)" },
  },
  me: {
    summary: "Read your stats",
    description: `The caller's numbers over all their posts, and their most read posts. ${counting}`,
    access: "signed-in",
    query: RangeQuery,
    response: { status: 200, description: "The writer's numbers", schema: MyStatsSchema },
  },
  site: {
    summary: "Read the site's stats",
    description: `The whole site's views, visitors, sign-ups, published posts and comments. ${counting}`,
    access: "admin",
    query: RangeQuery,
    response: { status: 200, description: "The site's numbers", schema: SiteStatsSchema },
  },
} satisfies Record<string, RouteDocs>;
