import type { FastifyInstance } from "fastify";
import {
  checkPasswordResetLink,
  resetPassword,
  sendPasswordResetLink,
} from "../../../core/auth/auth-service.js";
import type { CoreDeps } from "../../../core/deps.js";
import { limits } from "../rate-limits.js";
import { passwordDocs as docs } from "./docs.js";
import { documented } from "../openapi/route-docs.js";

type LinkParams = { Params: { userId: string; token: string } };

export function passwordRoutes(app: FastifyInstance, deps: CoreDeps) {
  app.post(
    "/api/password/reset-password-link",
    documented(docs.sendLink, limits.resetLink),
    (request) => sendPasswordResetLink(deps, request.body),
  );

  app.get<LinkParams>(
    "/api/password/reset-password/:userId/:token",
    documented(docs.checkLink),
    (request) => checkPasswordResetLink(deps, request.params.userId, request.params.token),
  );

  app.post<LinkParams>(
    "/api/password/reset-password/:userId/:token",
    documented(docs.reset, limits.login),
    (request) => resetPassword(deps, request.params.userId, request.params.token, request.body),
  );
}
