import type { FastifyInstance } from "fastify";
import type { CoreDeps } from "../../../core/deps.js";
import { toggleFollow } from "../../../core/follows/follows-service.js";
import { listFeed } from "../../../core/posts/posts-service.js";
import { requireSignedIn } from "../../plugins/auth.js";
import { readPageQuery } from "../query.js";
import { documented } from "../openapi/route-docs.js";
import { limits } from "../rate-limits.js";
import { followDocs as docs } from "./docs.js";

type IdParams = { Params: { id: string } };

/** Following writers and reading what they publish (DESIGN.md 9, "Reading"). */
export function followRoutes(app: FastifyInstance, deps: CoreDeps) {
  app.put<IdParams>(
    "/api/users/follow/:id",
    documented(docs.toggle, limits.follow),
    async (request) => {
      const { actor } = await requireSignedIn(deps, request);
      return toggleFollow(deps, actor, request.params.id);
    },
  );

  app.get("/api/posts/feed", documented(docs.feed), async (request) => {
    const { actor } = await requireSignedIn(deps, request);
    const { pageNumber } = readPageQuery(request.query);
    return listFeed(deps, actor, pageNumber ?? 1);
  });
}
