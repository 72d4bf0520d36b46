import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { matchRoutes, type RequestHandler, type RouteObject, type ServerBuild } from "react-router";
import { findSessionUser } from "../../core/auth/sessions.js";
import type { CoreDeps } from "../../core/deps.js";
import { actorOf } from "../../core/users/policies.js";
import { presentPublicUser } from "../../core/users/presenters.js";
import { FLASH_COOKIE, readCookie, sessionCookieName } from "../../contract/cookies.js";
import type { LimitName, SiteInfo, Viewer } from "../../contract/site-host.js";
import { THEME_COOKIE, themeOf } from "../../contract/theme.js";
import type { WorkSlots } from "../../core/shared/work-slots.js";
import { limits } from "../api/rate-limits.js";
import type { ContentVersion } from "./content-version.js";

// What the web site's host reads off a page request and writes on its answer (server/web/site.ts).

/** What the site's page renderers share: the build's handler, the render slots, the site. */
export interface PageHost {
  deps: CoreDeps;
  handle: RequestHandler;
  rendering: WorkSlots;
  siteInfo: () => Promise<SiteInfo>;
  secureCookies: boolean;
  siteOrigin: string;
  imageOrigins: readonly string[];
  contentVersion: ContentVersion;
  /** The API's limits for page actions; undefined when rate limits are off. */
  limited: ReturnType<typeof pageRateLimits>;
}

/**
 * Anonymous pages may be kept by shared caches briefly (a CDN absorbs a rush) and revalidated by
 * browsers every time; a signed-in visitor's Cookie keeps them out of the shared copy.
 */
export const SHARED_PAGE_HEADERS = {
  "cache-control": "public, max-age=0, s-maxage=10, stale-while-revalidate=30",
  vary: "Cookie, Accept-Encoding",
};

/** The member a page request's session cookie names, if any. */
export async function viewerOf(
  deps: CoreDeps,
  request: FastifyRequest,
  secure: boolean,
): Promise<Viewer | undefined> {
  const token = readCookie(request.headers.cookie, sessionCookieName(secure));
  if (!token || !/^[A-Za-z0-9_-]{20,100}$/.test(token)) return undefined;
  const session = await findSessionUser(deps.db, token, deps.clock());
  if (!session) return undefined;
  return {
    actor: actorOf(session.user),
    sessionId: session.sessionId,
    signedInAt: session.signedInAt,
    secondFactor: session.secondFactor,
    user: { ...presentPublicUser(deps, session.user), isAdmin: session.user.is_admin === 1 },
  };
}

const SAFE_METHODS = new Set(["GET", "HEAD"]);

/**
 * The pages' policy: only this site's scripts and the inline ones React Router writes, named by
 * this response's nonce or, on a shared render, by their hashes.
 */
export function pageCsp(
  scriptSources: string[],
  siteOrigin: string,
  imageOrigins: readonly string[],
) {
  return [
    "default-src 'self'",
    ["script-src 'self'", ...scriptSources].join(" "),
    "style-src 'self'",
    ["img-src 'self' data: blob:", ...imageOrigins].join(" "),
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    ...(siteOrigin.startsWith("https:") ? ["upgrade-insecure-requests"] : []),
  ].join("; ");
}

/**
 * A form post that did not come from this site is refused: the session cookie is SameSite=Lax,
 * and this closes the rest (a same-site page on another port or subdomain, old browsers).
 */
export function isCrossOrigin(request: FastifyRequest, siteOrigin: string) {
  if (SAFE_METHODS.has(request.method)) return false;
  const origin = request.headers.origin;
  if (origin !== undefined) return origin !== siteOrigin;
  const fetchSite = request.headers["sec-fetch-site"];
  return fetchSite !== undefined && fetchSite !== "same-origin" && fetchSite !== "none";
}

export function toWebRequest(request: FastifyRequest, url: URL, signal: AbortSignal) {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else if (value !== undefined) headers.set(name, value);
  }
  const body = request.body;
  return new Request(url, {
    // HEAD is rendered as GET (Fastify leaves the body out), so its answer matches GET's exactly.
    method: request.method === "HEAD" ? "GET" : request.method,
    headers,
    signal,
    ...(Buffer.isBuffer(body) && !SAFE_METHODS.has(request.method)
      ? { body: new Uint8Array(body) }
      : {}),
  });
}

export async function sendWebResponse(reply: FastifyReply, response: Response, body: Buffer) {
  reply.status(response.status);
  for (const [name, value] of response.headers) {
    if (name !== "set-cookie") void reply.header(name, value);
  }
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) void reply.header("set-cookie", cookies);
  return reply.send(body);
}

/** A read whose render may be shared: by someone not signed in, with no message to show. */
export function mayShare(request: FastifyRequest, sessionCookie: string) {
  if (!SAFE_METHODS.has(request.method)) return false;
  const cookies = request.headers.cookie;
  return (
    readCookie(cookies, sessionCookie) === undefined &&
    readCookie(cookies, FLASH_COOKIE) === undefined
  );
}

/** A read by a signed-in member (their session cookie), with no message to show. */
export function mayServeMember(request: FastifyRequest, sessionCookie: string) {
  if (!SAFE_METHODS.has(request.method)) return false;
  const cookies = request.headers.cookie;
  return (
    readCookie(cookies, sessionCookie) !== undefined &&
    readCookie(cookies, FLASH_COOKIE) === undefined
  );
}

/** Where two pages first differ, with some text around it in each; undefined when they do not. */
export function firstDifference(page: string, whole: string) {
  if (page === whole) return undefined;
  let at = 0;
  while (at < page.length && page[at] === whole[at]) at += 1;
  const around = (text: string) => JSON.stringify(text.slice(Math.max(0, at - 80), at + 80));
  return `at ${String(at)}: ${around(page)} against ${around(whole)}`;
}

export const themeOfRequest = (request: FastifyRequest) =>
  themeOf(readCookie(request.headers.cookie, THEME_COOKIE));

/** The build's routes as the tree React Router matches addresses against. */
function routeTree(routes: ServerBuild["routes"], parentId?: string): RouteObject[] {
  return Object.values(routes).flatMap((route): RouteObject[] => {
    if (!route || route.parentId !== parentId) return [];
    const { id, path, caseSensitive } = route;
    return route.index
      ? [{ id, path, caseSensitive, index: true }]
      : [{ id, path, caseSensitive, children: routeTree(routes, id) }];
  });
}

/**
 * Whether only the catch-all route (app/routes/not-found.tsx) knows a page's path: its answer is
 * the one "Page Not Found" page, whatever the path. React Router's own requests are no page: a data
 * request (`.data`) and the route manifest the browser asks for as it navigates.
 */
export function unknownPaths(build: ServerBuild) {
  const tree = routeTree(build.routes);
  const { manifestPath } = build.routeDiscovery;
  return (pathname: string) =>
    !pathname.endsWith(".data") &&
    pathname !== manifestPath &&
    isCatchAll(matchRoutes(tree, pathname)?.at(-1));
}

/**
 * The catch-all, or the author pages' one-segment route (`/:handle`) for a segment that is no
 * `@username`: both answer the one "Page Not Found" page.
 */
function isCatchAll(match: { route: { id?: string }; params: { handle?: string } } | undefined) {
  if (match?.route.id === "routes/not-found") return true;
  return match?.route.id === "routes/author" && !match.params.handle?.startsWith("@");
}

/**
 * The API's limits, by name, for the page actions to apply (`context.limit("login")`): the same
 * numbers and the same count per address, so a form and its API route spend one allowance. Actions
 * ask for them after React Router has matched the route, so no spelling of a URL slips past.
 */
export function pageRateLimits(server: FastifyInstance) {
  if (!server.hasDecorator("createRateLimit")) return undefined;
  const checks = new Map(
    (Object.keys(limits) as LimitName[]).map((name) => [
      name,
      server.createRateLimit(limits[name].rateLimit),
    ]),
  );
  return async (request: FastifyRequest, name: LimitName): Promise<string | undefined> => {
    const check = checks.get(name);
    if (!check) return undefined;
    const result = await check(request);
    if (result.isAllowed || !result.isExceeded) return undefined;
    const minutes = Math.max(1, Math.ceil(result.ttl / 60_000));
    return `Too many requests, please try again in ${String(minutes)} minute${minutes === 1 ? "" : "s"}`;
  };
}
