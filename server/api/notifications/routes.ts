import type { FastifyInstance } from "fastify";
import type { CoreDeps } from "../../../core/deps.js";
import {
  listNotifications,
  markNotificationsRead,
} from "../../../core/notifications/notifications-service.js";
import { requireSignedIn } from "../../plugins/auth.js";
import { documented } from "../openapi/route-docs.js";
import { readPageQuery } from "../query.js";
import { notificationDocs as docs } from "./docs.js";

/** A person's own notifications: nobody else's are ever read or marked (DESIGN.md 9). */
export function notificationRoutes(app: FastifyInstance, deps: CoreDeps) {
  app.get("/api/notifications", documented(docs.list), async (request) => {
    const { actor } = await requireSignedIn(deps, request);
    const { pageNumber } = readPageQuery(request.query);
    return listNotifications(deps, actor, pageNumber ?? 1);
  });

  app.post("/api/notifications/read", documented(docs.read), async (request, reply) => {
    const { actor } = await requireSignedIn(deps, request);
    await markNotificationsRead(deps, actor, request.body);
    return reply.status(204).send();
  });
}
