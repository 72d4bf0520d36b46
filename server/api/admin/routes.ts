import type { FastifyInstance } from "fastify";
import { listAudit } from "../../../core/audit/audit-log.js";
import { countUsers, listUsers } from "../../../core/users/users-service.js";
import type { CoreDeps } from "../../../core/deps.js";
import { requireSignedIn } from "../../plugins/auth.js";
import { readPageQuery } from "../query.js";
import { adminDocs as docs } from "./docs.js";
import { documented } from "../openapi/route-docs.js";

export function adminRoutes(app: FastifyInstance, deps: CoreDeps) {
  // Read-only: no route changes or deletes the log.
  app.get("/api/admin/audit", documented(docs.audit), async (request) => {
    const { actor } = await requireSignedIn(deps, request);
    const { pageNumber } = readPageQuery(request.query);
    return listAudit(deps, actor, pageNumber ?? 1);
  });

  // The users table's search and pages, beside SPEC's list of every account (issue 50).
  app.get("/api/admin/users", documented(docs.users), async (request) => {
    const { actor } = await requireSignedIn(deps, request);
    const users = await listUsers(deps, actor, request.query);
    const { userCount } = await countUsers(deps, actor, request.query);
    return { total: userCount, users };
  });
}
