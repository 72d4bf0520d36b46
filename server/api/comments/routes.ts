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
import { commentDocs as docs } from "./docs.js";
import { documented } from "../openapi/route-docs.js";

type IdParams = { Params: { id: string } };

export function commentRoutes(app: FastifyInstance, deps: CoreDeps) {
  app.get("/api/comments", documented(docs.list), async (request) => {
    const { actor } = await requireSignedIn(deps, request);
    return listComments(deps, actor);
  });

  app.post("/api/comments", documented(docs.create, limits.comment), async (request, reply) => {
    const { actor } = await requireSignedIn(deps, request);
    return reply.status(201).send(await createComment(deps, actor, request.body));
  });

  app.put<IdParams>("/api/comments/:id", documented(docs.update), async (request) => {
    const { actor } = await requireSignedIn(deps, request);
    return updateComment(deps, actor, request.params.id, request.body);
  });

  app.delete<IdParams>("/api/comments/:id", documented(docs.remove), async (request) => {
    const { actor } = await requireSignedIn(deps, request);
    return deleteComment(deps, actor, request.params.id);
  });
}
