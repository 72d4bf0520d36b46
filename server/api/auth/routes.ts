import type { FastifyInstance } from "fastify";
import { login, logout, register, verifyEmail } from "../../../core/auth/auth-service.js";
import type { CoreDeps } from "../../../core/deps.js";
import { requireSession } from "../../plugins/auth.js";
import type { RenderPage } from "../../web/site.js";
import { limits } from "../rate-limits.js";
import { authDocs as docs } from "./docs.js";
import { documented } from "../openapi/route-docs.js";

/** A browser opening the mailed link wants the page; an API client wants JSON. */
const wantsPage = (accept: string | undefined) =>
  accept !== undefined && /text\/html/.test(accept) && !/application\/json/.test(accept);

export function authRoutes(app: FastifyInstance, deps: CoreDeps, renderPage?: RenderPage) {
  app.post(
    "/api/auth/register",
    documented(docs.register, limits.register),
    async (request, reply) => reply.status(201).send(await register(deps, request.body)),
  );

  app.post("/api/auth/login", documented(docs.login, limits.login), (request) =>
    login(deps, request.body, request.headers["user-agent"]),
  );

  app.post("/api/auth/logout", documented(docs.logout), async (request, reply) => {
    const { session } = await requireSession(deps, request);
    await logout(deps, session.sessionId);
    return reply.status(204).send();
  });

  // One path, two answers (DESIGN.md 5): the link in the mail is also the API call.
  app.get<{ Params: { userId: string; token: string } }>(
    "/api/auth/:userId/verify/:token",
    documented(docs.verify),
    (request, reply) =>
      renderPage && wantsPage(request.headers.accept)
        ? renderPage(request, reply)
        : verifyEmail(deps, request.params.userId, request.params.token),
  );
}
