import type { FastifyRequest } from "fastify";
import { findSessionUser, type SessionUser } from "../../core/auth/sessions.js";
import type { CoreDeps } from "../../core/deps.js";
import { findTokenUser, isApiToken } from "../../core/integrations/api-tokens.js";
import { forbidden, unauthenticated } from "../../core/shared/errors.js";
import { actorOf, type Actor } from "../../core/users/policies.js";
import { integrationMessages } from "../../contract/integrations.js";
import type { TokenScope } from "../../db/schema.js";

const BEARER = /^Bearer ([A-Za-z0-9_-]{20,100})$/;
const READS = new Set(["GET", "HEAD"]);

/** The signed-in caller: a session (signed in with a password or passkey) or an API token. */
export type Signed =
  | { actor: Actor; session: SessionUser; token?: undefined }
  | { actor: Actor; session?: undefined; token: { id: string; scope: TokenScope } };

const resolved = new WeakMap<FastifyRequest, Promise<Signed | undefined>>();

async function lookUp(deps: CoreDeps, request: FastifyRequest, token: string) {
  if (!isApiToken(token)) {
    const session = await findSessionUser(deps.db, token, deps.clock());
    return session && { actor: actorOf(session.user), session };
  }
  const found = await findTokenUser(deps.db, token, deps.clock());
  if (!found) return undefined;
  // A read token reads: anything else it is refused, whatever the call (decision 025).
  if (found.scope === "read" && !READS.has(request.method)) {
    throw forbidden(integrationMessages.readOnlyToken);
  }
  return { actor: actorOf(found.user), token: { id: found.tokenId, scope: found.scope } };
}

/** The signed-in caller, if any; looked up once per request and only where a route asks. */
export function optionalSignedIn(deps: CoreDeps, request: FastifyRequest) {
  let pending = resolved.get(request);
  if (!pending) {
    const token = BEARER.exec(request.headers.authorization ?? "")?.[1];
    pending = token ? lookUp(deps, request, token) : Promise.resolve(undefined);
    resolved.set(request, pending);
  }
  return pending;
}

export async function requireSignedIn(deps: CoreDeps, request: FastifyRequest): Promise<Signed> {
  const signed = await optionalSignedIn(deps, request);
  if (!signed) {
    const token = BEARER.exec(request.headers.authorization ?? "")?.[1];
    throw token && isApiToken(token)
      ? unauthenticated(integrationMessages.tokenInvalid)
      : request.headers.authorization
        ? unauthenticated("Your session has expired, please log in again")
        : unauthenticated("No token provided, please log in");
  }
  return signed;
}

/**
 * A caller signed in with a session, for account changes (e-mail, password, tokens, second
 * factors, sessions, deleting the account): an API token is refused with 403.
 */
export async function requireSession(deps: CoreDeps, request: FastifyRequest) {
  const signed = await requireSignedIn(deps, request);
  if (!signed.session) throw forbidden(integrationMessages.notWithToken);
  return { actor: signed.actor, session: signed.session };
}
