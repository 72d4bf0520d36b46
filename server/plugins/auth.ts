import type { FastifyRequest } from "fastify";
import { findSessionUser, type SessionUser } from "../../core/auth/sessions.js";
import type { CoreDeps } from "../../core/deps.js";
import { unauthenticated } from "../../core/shared/errors.js";
import { actorOf, type Actor } from "../../core/users/policies.js";

const BEARER = /^Bearer ([A-Za-z0-9_-]{20,100})$/;

export interface Signed {
  actor: Actor;
  session: SessionUser;
}

const resolved = new WeakMap<FastifyRequest, Promise<Signed | undefined>>();

/** The signed-in caller, if any; looked up once per request and only where a route asks. */
export function optionalSignedIn(deps: CoreDeps, request: FastifyRequest) {
  let pending = resolved.get(request);
  if (!pending) {
    const token = BEARER.exec(request.headers.authorization ?? "")?.[1];
    pending = token
      ? findSessionUser(deps.db, token, deps.clock()).then((session) =>
          session ? { actor: actorOf(session.user), session } : undefined,
        )
      : Promise.resolve(undefined);
    resolved.set(request, pending);
  }
  return pending;
}

export async function requireSignedIn(deps: CoreDeps, request: FastifyRequest): Promise<Signed> {
  const signed = await optionalSignedIn(deps, request);
  if (!signed) {
    throw request.headers.authorization
      ? unauthenticated("Your session has expired, please log in again")
      : unauthenticated("No token provided, please log in");
  }
  return signed;
}
