import type { FastifyInstance } from "fastify";
import {
  createCategory,
  deleteCategory,
  listCategories,
} from "../../../core/categories/categories-service.js";
import type { CoreDeps } from "../../../core/deps.js";
import { listPosts } from "../../../core/posts/posts-service.js";
import { requireSignedIn } from "../../plugins/auth.js";
import { readPageQuery } from "../query.js";
import { categoryDocs as docs } from "./docs.js";
import { documented } from "../openapi/route-docs.js";

export function categoryRoutes(app: FastifyInstance, deps: CoreDeps) {
  app.get("/api/categories", documented(docs.list), () => listCategories(deps));

  app.post("/api/categories", documented(docs.create), async (request, reply) => {
    const { actor } = await requireSignedIn(deps, request);
    return reply.status(201).send(await createCategory(deps, actor, request.body));
  });

  app.delete<{ Params: { id: string } }>(
    "/api/categories/:id",
    documented(docs.remove),
    async (request) => {
      const { actor } = await requireSignedIn(deps, request);
      return deleteCategory(deps, actor, request.params.id);
    },
  );

  app.get<{ Params: { category: string } }>(
    "/api/categories/category/:category",
    documented(docs.posts),
    (request) => {
      const { pageNumber } = readPageQuery(request.query);
      return listPosts(deps, { category: request.params.category }, pageNumber ?? 1);
    },
  );
}
