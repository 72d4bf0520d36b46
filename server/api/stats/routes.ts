import type { FastifyInstance } from "fastify";
import type { CoreDeps } from "../../../core/deps.js";
import {
  myStats,
  postStats,
  readStatsRange,
  siteStats,
} from "../../../core/stats/stats-service.js";
import { requireSignedIn } from "../../plugins/auth.js";
import { documented } from "../openapi/route-docs.js";
import { statsDocs as docs } from "./docs.js";

/** Writers' stats (DESIGN.md 10, "Writers' stats"; decision 026). */
export function statsRoutes(app: FastifyInstance, deps: CoreDeps) {
  app.get<{ Params: { id: string } }>(
    "/api/stats/posts/:id",
    documented(docs.post),
    async (request) => {
      const { actor } = await requireSignedIn(deps, request);
      return postStats(deps, actor, request.params.id, readStatsRange(request.query));
    },
  );

  app.get("/api/stats/me", documented(docs.me), async (request) => {
    const { actor } = await requireSignedIn(deps, request);
    return myStats(deps, actor, readStatsRange(request.query));
  });

  app.get("/api/admin/stats", documented(docs.site), async (request) => {
    const { actor } = await requireSignedIn(deps, request);
    return siteStats(deps, actor, readStatsRange(request.query));
  });
}
