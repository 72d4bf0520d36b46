import type { FastifyInstance } from "fastify";
import type { CoreDeps } from "../../../core/deps.js";
import { createReport, decideReport, listReports } from "../../../core/reports/reports-service.js";
import { requireSignedIn } from "../../plugins/auth.js";
import { limits } from "../rate-limits.js";
import { reportDocs as docs } from "./docs.js";
import { documented } from "../openapi/route-docs.js";

type IdParams = { Params: { id: string } };

export function reportRoutes(app: FastifyInstance, deps: CoreDeps) {
  app.post("/api/reports", documented(docs.create, limits.report), async (request, reply) => {
    const { actor } = await requireSignedIn(deps, request);
    return reply.status(201).send(await createReport(deps, actor, request.body));
  });

  app.get("/api/reports", documented(docs.list), async (request) => {
    const { actor } = await requireSignedIn(deps, request);
    return listReports(deps, actor, request.query);
  });

  app.put<IdParams>("/api/reports/:id", documented(docs.decide), async (request) => {
    const { actor } = await requireSignedIn(deps, request);
    return decideReport(deps, actor, request.params.id, request.body);
  });
}
