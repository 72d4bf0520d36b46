import type { FastifyInstance } from "fastify";
import { login, logout, register, verifyEmail } from "../../../core/auth/auth-service.js";
import type { CoreDeps } from "../../../core/deps.js";
import { requireSignedIn } from "../../plugins/auth.js";
import { limits } from "../rate-limits.js";

export function authRoutes(app: FastifyInstance, deps: CoreDeps) {
  app.post("/api/auth/register", { config: limits.register }, async (request, reply) =>
    reply.status(201).send(await register(deps, request.body)),
  );

  app.post("/api/auth/login", { config: limits.login }, (request) => login(deps, request.body));

  app.post("/api/auth/logout", async (request, reply) => {
    const { session } = await requireSignedIn(deps, request);
    await logout(deps, session.sessionId);
    return reply.status(204).send();
  });

  app.get<{ Params: { userId: string; token: string } }>(
    "/api/auth/:userId/verify/:token",
    (request) => verifyEmail(deps, request.params.userId, request.params.token),
  );
}
