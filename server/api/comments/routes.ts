import type { FastifyInstance } from "fastify";
import {
  createComment,
  deleteComment,
  listComments,
  updateComment,
} from "../../../core/comments/comments-service.js";
import type { CoreDeps } from "../../../core/deps.js";
import { requireSignedIn } from "../../plugins/auth.js";
import { limits } from "../rate-limits.js";

type IdParams = { Params: { id: string } };

export function commentRoutes(app: FastifyInstance, deps: CoreDeps) {
  app.get("/api/comments", async (request) => {
    const { actor } = await requireSignedIn(deps, request);
    return listComments(deps, actor);
  });

  app.post("/api/comments", { config: limits.comment }, async (request, reply) => {
    const { actor } = await requireSignedIn(deps, request);
    return reply.status(201).send(await createComment(deps, actor, request.body));
  });

  app.put<IdParams>("/api/comments/:id", async (request) => {
    const { actor } = await requireSignedIn(deps, request);
    return updateComment(deps, actor, request.params.id, request.body);
  });

  app.delete<IdParams>("/api/comments/:id", async (request) => {
    const { actor } = await requireSignedIn(deps, request);
    return deleteComment(deps, actor, request.params.id);
  });
}
