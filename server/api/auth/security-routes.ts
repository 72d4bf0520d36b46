import type { FastifyInstance, FastifyRequest } from "fastify";
import { loginWithPasskey } from "../../../core/auth/auth-service.js";
import {
  listPasskeys,
  passkeyLoginOptions,
  passkeyRegistrationOptions,
  removePasskey,
  verifyPasskeyRegistration,
} from "../../../core/auth/passkeys.js";
import {
  disableTwoFactor,
  enableTwoFactor,
  setupTwoFactor,
} from "../../../core/auth/second-factor.js";
import { endSession, listSessions, revokeUserSessions } from "../../../core/auth/sessions.js";
import type { CoreDeps } from "../../../core/deps.js";
import { PASSKEY_RESPONSE_MAX } from "../../../contract/account-security.js";
import { requireSession } from "../../plugins/auth.js";
import { documented } from "../openapi/route-docs.js";
import { limits } from "../rate-limits.js";
import { securityDocs as docs } from "./security-docs.js";

type WithId = { Params: { id: string } };

/** Two-factor sign-in, passkeys and the sessions list (DESIGN.md 10, "Account security"). */
export function securityRoutes(app: FastifyInstance, deps: CoreDeps) {
  // The caller's session: its account, and which session it is and when it signed in. API tokens
  // never reach these calls (403).
  const owner = async (request: FastifyRequest) => (await requireSession(deps, request)).session;

  app.post("/api/auth/2fa/setup", documented(docs.setup, limits.security), async (request) => {
    const session = await owner(request);
    return setupTwoFactor(deps, session.user, session);
  });

  app.post("/api/auth/2fa/enable", documented(docs.enable, limits.security), async (request) => {
    const session = await owner(request);
    return enableTwoFactor(deps, session.user, request.body, session);
  });

  app.post(
    "/api/auth/2fa/disable",
    documented(docs.disable, limits.security),
    async (request, reply) => {
      await disableTwoFactor(deps, (await owner(request)).user, request.body);
      return reply.status(204).send();
    },
  );

  app.post(
    "/api/auth/passkeys/register/options",
    documented(docs.registerOptions, limits.security),
    async (request) => {
      const session = await owner(request);
      return passkeyRegistrationOptions(deps, session.user, request.body, session);
    },
  );

  app.post(
    "/api/auth/passkeys/register/verify",
    { ...documented(docs.registerVerify, limits.security), bodyLimit: PASSKEY_RESPONSE_MAX },
    async (request, reply) => {
      const session = await owner(request);
      const passkey = await verifyPasskeyRegistration(deps, session.user, request.body, session);
      return reply.status(201).send(passkey);
    },
  );

  app.post("/api/auth/passkeys/login/options", documented(docs.loginOptions, limits.login), () =>
    passkeyLoginOptions(deps),
  );

  app.post(
    "/api/auth/passkeys/login/verify",
    documented(docs.loginVerify, limits.login),
    (request) => loginWithPasskey(deps, request.body, request.headers["user-agent"]),
  );

  app.get("/api/auth/passkeys", documented(docs.listPasskeys), async (request) =>
    listPasskeys(deps, (await owner(request)).user.id),
  );

  app.delete<WithId>(
    "/api/auth/passkeys/:id",
    documented(docs.removePasskey, limits.security),
    async (request, reply) => {
      const session = await owner(request);
      await removePasskey(deps, session.user, request.params.id, request.body, session);
      return reply.status(204).send();
    },
  );

  app.get("/api/auth/sessions", documented(docs.listSessions), async (request) => {
    const session = await owner(request);
    return listSessions(deps, session.user.id, session.sessionId);
  });

  app.delete<WithId>(
    "/api/auth/sessions/:id",
    documented(docs.endSession),
    async (request, reply) => {
      await endSession(deps.db, (await owner(request)).user.id, request.params.id);
      return reply.status(204).send();
    },
  );

  app.post(
    "/api/auth/sessions/revoke-others",
    documented(docs.endOthers),
    async (request, reply) => {
      const session = await owner(request);
      await revokeUserSessions(deps.db, session.user.id, session.sessionId);
      return reply.status(204).send();
    },
  );
}
