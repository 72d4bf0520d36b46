import type { FastifyInstance } from "fastify";
import {
  checkPasswordResetLink,
  resetPassword,
  sendPasswordResetLink,
} from "../../../core/auth/auth-service.js";
import type { CoreDeps } from "../../../core/deps.js";
import { limits } from "../rate-limits.js";

type LinkParams = { Params: { userId: string; token: string } };

export function passwordRoutes(app: FastifyInstance, deps: CoreDeps) {
  app.post("/api/password/reset-password-link", { config: limits.resetLink }, (request) =>
    sendPasswordResetLink(deps, request.body),
  );

  app.get<LinkParams>("/api/password/reset-password/:userId/:token", (request) =>
    checkPasswordResetLink(deps, request.params.userId, request.params.token),
  );

  app.post<LinkParams>(
    "/api/password/reset-password/:userId/:token",
    { config: limits.login },
    (request) => resetPassword(deps, request.params.userId, request.params.token, request.body),
  );
}
