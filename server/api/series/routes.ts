import type { FastifyInstance } from "fastify";
import type { CoreDeps } from "../../../core/deps.js";
import {
  createSeries,
  deleteSeries,
  getSeries,
  updateSeries,
} from "../../../core/series/series-service.js";
import { optionalSignedIn, requireSignedIn } from "../../plugins/auth.js";
import { documented } from "../openapi/route-docs.js";
import { limits } from "../rate-limits.js";
import { seriesDocs as docs } from "./docs.js";

type SeriesParams = { Params: { id: string } };

/** Series (DESIGN.md 11, "Pages and series"; decision 032): a writer's own posts, in order. */
export function seriesRoutes(app: FastifyInstance, deps: CoreDeps) {
  app.get<SeriesParams>("/api/series/:id", documented(docs.get), async (request) => {
    const signed = await optionalSignedIn(deps, request);
    return getSeries(deps, signed?.actor, request.params.id);
  });

  app.post("/api/series", documented(docs.create, limits.postEdit), async (request, reply) => {
    const { actor } = await requireSignedIn(deps, request);
    return reply.status(201).send(await createSeries(deps, actor, request.body));
  });

  app.put<SeriesParams>(
    "/api/series/:id",
    documented(docs.update, limits.postEdit),
    async (request) => {
      const { actor } = await requireSignedIn(deps, request);
      return updateSeries(deps, actor, request.params.id, request.body);
    },
  );

  app.delete<SeriesParams>("/api/series/:id", documented(docs.remove), async (request) => {
    const { actor } = await requireSignedIn(deps, request);
    return deleteSeries(deps, actor, request.params.id);
  });
}
