import type { FastifyInstance } from "fastify";
import type { CoreDeps } from "../../../core/deps.js";
import {
  createApiToken,
  listApiTokens,
  revokeApiToken,
} from "../../../core/integrations/api-tokens.js";
import {
  createWebhook,
  deleteWebhook,
  listDeliveries,
  listWebhooks,
  sendTestEvent,
} from "../../../core/integrations/webhooks.js";
import { requireSession, requireSignedIn } from "../../plugins/auth.js";
import { documented } from "../openapi/route-docs.js";
import { readPageQuery } from "../query.js";
import { limits } from "../rate-limits.js";
import { integrationDocs as docs } from "./docs.js";

type WithId = { Params: { id: string } };

/** Personal API tokens and webhooks (DESIGN.md 10, "Integrations"; decision 025). */
export function integrationRoutes(app: FastifyInstance, deps: CoreDeps) {
  app.post(
    "/api/tokens",
    documented(docs.createToken, limits.integrations),
    async (request, reply) => {
      const { session } = await requireSession(deps, request);
      const token = await createApiToken(deps, session.user.id, session, request.body);
      return reply.status(201).send(token);
    },
  );

  app.get("/api/tokens", documented(docs.listTokens), async (request) => {
    const { session } = await requireSession(deps, request);
    return listApiTokens(deps.db, session.user.id);
  });

  app.delete<WithId>("/api/tokens/:id", documented(docs.revokeToken), async (request, reply) => {
    const { session } = await requireSession(deps, request);
    await revokeApiToken(deps.db, session.user.id, request.params.id);
    return reply.status(204).send();
  });

  app.post(
    "/api/webhooks",
    documented(docs.createWebhook, limits.integrations),
    async (request, reply) => {
      const { actor } = await requireSignedIn(deps, request);
      return reply.status(201).send(await createWebhook(deps, actor, request.body));
    },
  );

  app.get("/api/webhooks", documented(docs.listWebhooks), async (request) => {
    const { actor } = await requireSignedIn(deps, request);
    return listWebhooks(deps, actor);
  });

  app.delete<WithId>(
    "/api/webhooks/:id",
    documented(docs.deleteWebhook),
    async (request, reply) => {
      const { actor } = await requireSignedIn(deps, request);
      await deleteWebhook(deps, actor, request.params.id);
      return reply.status(204).send();
    },
  );

  app.get<WithId>("/api/webhooks/:id/deliveries", documented(docs.deliveries), async (request) => {
    const { actor } = await requireSignedIn(deps, request);
    const { pageNumber } = readPageQuery(request.query);
    return listDeliveries(deps, actor, request.params.id, pageNumber ?? 1);
  });

  app.post<WithId>(
    "/api/webhooks/:id/test",
    documented(docs.test, limits.integrations),
    async (request, reply) => {
      const { actor } = await requireSignedIn(deps, request);
      return reply.status(201).send(await sendTestEvent(deps, actor, request.params.id));
    },
  );
}
