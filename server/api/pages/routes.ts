import type { FastifyInstance } from "fastify";
import type { CoreDeps } from "../../../core/deps.js";
import {
  createPage,
  deletePage,
  findPageBySlug,
  listPages,
  updatePage,
} from "../../../core/pages/pages-service.js";
import {
  getPageRevision,
  listPageRevisions,
  restorePageRevision,
} from "../../../core/pages/page-revisions.js";
import { optionalSignedIn, requireSignedIn } from "../../plugins/auth.js";
import { documented } from "../openapi/route-docs.js";
import { limits } from "../rate-limits.js";
import { pageDocs as docs } from "./docs.js";

/** `:page` is the page's slug to read it, its id to change it (one name: one path to clients). */
type PageParams = { Params: { page: string } };
type RevisionParams = { Params: { id: string; revisionId: string } };

/** Static pages (DESIGN.md 11, "Pages and series"; decision 032): admins write, anyone reads. */
export function pageRoutes(app: FastifyInstance, deps: CoreDeps) {
  app.get("/api/pages", documented(docs.list), async (request) => {
    const signed = await optionalSignedIn(deps, request);
    return listPages(deps, signed?.actor);
  });

  app.get<PageParams>("/api/pages/:page", documented(docs.get), async (request) => {
    const signed = await optionalSignedIn(deps, request);
    return (await findPageBySlug(deps, signed?.actor, request.params.page)).page;
  });

  app.post("/api/pages", documented(docs.create, limits.postEdit), async (request, reply) => {
    const { actor } = await requireSignedIn(deps, request);
    return reply.status(201).send(await createPage(deps, actor, request.body));
  });

  app.put<PageParams>(
    "/api/pages/:page",
    documented(docs.update, limits.postEdit),
    async (request) => {
      const { actor } = await requireSignedIn(deps, request);
      return updatePage(deps, actor, request.params.page, request.body);
    },
  );

  app.delete<PageParams>("/api/pages/:page", documented(docs.remove), async (request) => {
    const { actor } = await requireSignedIn(deps, request);
    return deletePage(deps, actor, request.params.page);
  });

  app.get<{ Params: { id: string } }>(
    "/api/pages/:id/revisions",
    documented(docs.revisions),
    async (request) => {
      const { actor } = await requireSignedIn(deps, request);
      return listPageRevisions(deps, actor, request.params.id, request.query);
    },
  );

  app.get<RevisionParams>(
    "/api/pages/:id/revisions/:revisionId",
    documented(docs.revision),
    async (request) => {
      const { actor } = await requireSignedIn(deps, request);
      return getPageRevision(deps, actor, request.params.id, request.params.revisionId);
    },
  );

  app.post<RevisionParams>(
    "/api/pages/:id/revisions/:revisionId/restore",
    documented(docs.restore, limits.postEdit),
    async (request) => {
      const { actor } = await requireSignedIn(deps, request);
      return restorePageRevision(deps, actor, request.params.id, request.params.revisionId);
    },
  );
}
