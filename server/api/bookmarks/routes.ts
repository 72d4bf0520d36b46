import type { FastifyInstance } from "fastify";
import { listBookmarks, toggleBookmark } from "../../../core/bookmarks/bookmarks-service.js";
import type { CoreDeps } from "../../../core/deps.js";
import { requireSignedIn } from "../../plugins/auth.js";
import { readPageQuery } from "../query.js";
import { documented } from "../openapi/route-docs.js";
import { limits } from "../rate-limits.js";
import { bookmarkDocs as docs } from "./docs.js";

type IdParams = { Params: { id: string } };

/** A reader's saved posts (DESIGN.md 9, "Reading"). */
export function bookmarkRoutes(app: FastifyInstance, deps: CoreDeps) {
  app.put<IdParams>(
    "/api/posts/bookmark/:id",
    documented(docs.toggle, limits.bookmark),
    async (request) => {
      const { actor } = await requireSignedIn(deps, request);
      return toggleBookmark(deps, actor, request.params.id);
    },
  );

  app.get("/api/users/me/bookmarks", documented(docs.list), async (request) => {
    const { actor } = await requireSignedIn(deps, request);
    const { pageNumber } = readPageQuery(request.query);
    return listBookmarks(deps, actor, pageNumber ?? 1);
  });
}
