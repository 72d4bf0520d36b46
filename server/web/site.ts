import { randomBytes } from "node:crypto";
import { availableParallelism } from "node:os";
import { existsSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import fastifyStatic from "@fastify/static";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import {
  createRequestHandler,
  matchRoutes,
  type RouteObject,
  type ServerBuild,
} from "react-router";
import { findSessionUser } from "../../core/auth/sessions.js";
import type { CoreDeps } from "../../core/deps.js";
import { actorOf } from "../../core/users/policies.js";
import { presentPublicUser } from "../../core/users/presenters.js";
import { limits } from "../api/rate-limits.js";
import { imageOrigins as imageOriginsOf, type Config } from "../config.js";
import { THEME_COOKIE, themeOf, type Theme } from "../../contract/theme.js";
import { versionOfPage, type ContentVersion } from "./content-version.js";
import {
  composeMemberPage,
  cutShell,
  readParts,
  memberPageAddress,
  memberPageIsWholeFor,
  MemberShells,
  shellRecorder,
  type RenderIslands,
} from "./member-pages.js";
import type { SiteSettingsReader } from "./site-settings.js";
import { workSlots } from "../../core/shared/work-slots.js";
import {
  etagOf,
  inlineScriptHashes,
  sendShared,
  isSearchAddress,
  NOT_FOUND_ADDRESS,
  PageCache,
  preferredEncoding,
  sharedPageAddress,
  type CachedPage,
} from "./page-cache.js";
import { countViews, noteViewer } from "./view-counting.js";
import type { ViewCounter } from "../../core/stats/view-counter.js";
import type { LimitName, ShellRecorder, SiteInfo, Viewer } from "../../contract/site-host.js";
import { readCookie, sessionCookieName, FLASH_COOKIE } from "../../contract/cookies.js";

/**
 * Anonymous pages may be kept by shared caches briefly (a CDN absorbs a rush) and revalidated by
 * browsers every time; a signed-in visitor's Cookie keeps them out of the shared copy.
 */
const SHARED_PAGE_HEADERS = {
  "cache-control": "public, max-age=0, s-maxage=10, stale-while-revalidate=30",
  vary: "Cookie, Accept-Encoding",
};

/** Member pages' shells kept at once, with the data their islands close over. */
const MEMBER_SHELLS_BYTES = 32 * 1024 * 1024;
/** Members' pages kept, each with its compressed forms (~30 KB a page), by what made them. */
const MEMBER_PAGES_BYTES = 32 * 1024 * 1024;
/** Searches' shells, apart: any text is a search, and they must never push the pages out. */
const SEARCH_SHELLS_BYTES = 8 * 1024 * 1024;
/** A member's page is made again after this long even when nothing changed. */
const MEMBER_PAGE_MAX_AGE_MS = 10 * 60 * 1000;

export type RenderPage = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

async function viewerOf(
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
function isCrossOrigin(request: FastifyRequest, siteOrigin: string) {
  if (SAFE_METHODS.has(request.method)) return false;
  const origin = request.headers.origin;
  if (origin !== undefined) return origin !== siteOrigin;
  const fetchSite = request.headers["sec-fetch-site"];
  return fetchSite !== undefined && fetchSite !== "same-origin" && fetchSite !== "none";
}

function toWebRequest(request: FastifyRequest, url: URL, signal: AbortSignal) {
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

async function sendWebResponse(reply: FastifyReply, response: Response, body: Buffer) {
  reply.status(response.status);
  for (const [name, value] of response.headers) {
    if (name !== "set-cookie") void reply.header(name, value);
  }
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) void reply.header("set-cookie", cookies);
  return reply.send(body);
}

/** A read whose render may be shared: by someone not signed in, with no message to show. */
function mayShare(request: FastifyRequest, sessionCookie: string) {
  if (!SAFE_METHODS.has(request.method)) return false;
  const cookies = request.headers.cookie;
  return (
    readCookie(cookies, sessionCookie) === undefined &&
    readCookie(cookies, FLASH_COOKIE) === undefined
  );
}

/** A read by a signed-in member (their session cookie), with no message to show. */
function mayServeMember(request: FastifyRequest, sessionCookie: string) {
  if (!SAFE_METHODS.has(request.method)) return false;
  const cookies = request.headers.cookie;
  return (
    readCookie(cookies, sessionCookie) !== undefined &&
    readCookie(cookies, FLASH_COOKIE) === undefined
  );
}

/** Where two pages first differ, with some text around it in each; undefined when they do not. */
function firstDifference(page: string, whole: string) {
  if (page === whole) return undefined;
  let at = 0;
  while (at < page.length && page[at] === whole[at]) at += 1;
  const around = (text: string) => JSON.stringify(text.slice(Math.max(0, at - 80), at + 80));
  return `at ${String(at)}: ${around(page)} against ${around(whole)}`;
}

const themeOfRequest = (request: FastifyRequest) =>
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
function unknownPaths(build: ServerBuild) {
  const tree = routeTree(build.routes);
  const { manifestPath } = build.routeDiscovery;
  return (pathname: string) =>
    !pathname.endsWith(".data") &&
    pathname !== manifestPath &&
    matchRoutes(tree, pathname)?.at(-1)?.route.id === "routes/not-found";
}

/**
 * The API's limits, by name, for the page actions to apply (`context.limit("login")`): the same
 * numbers and the same count per address, so a form and its API route spend one allowance. Actions
 * ask for them after React Router has matched the route, so no spelling of a URL slips past.
 */
function pageRateLimits(server: FastifyInstance) {
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

/**
 * Serves the server-rendered site from the React Router build (`npm run build`). Returns the page
 * renderer, or undefined when there is no build (the API still works; the log says why).
 */
export async function registerWebSite(
  server: FastifyInstance,
  deps: CoreDeps,
  config: Config,
  root: string,
  shared: {
    cache: PageCache;
    searches: PageCache;
    contentVersion: ContentVersion;
    siteSettings: SiteSettingsReader;
  },
  options: {
    renderSlots?: number | undefined;
    /**
     * Render every member page from a shell whole as well, and fail (500) where the two differ:
     * the tests' check that a shell's page is exactly the page (decision 021).
     */
    verifyMemberPages?: boolean | undefined;
    /** Counts readers' views of post pages (decision 026); none when view counting is off. */
    views?: ViewCounter | undefined;
  } = {},
): Promise<RenderPage | undefined> {
  const buildFile = path.join(root, "build", "server", "index.js");
  if (!existsSync(buildFile)) {
    server.log.warn("No web build at build/server: run `npm run build` to serve the site");
    return undefined;
  }
  const build = (await import(pathToFileURL(buildFile).href)) as ServerBuild;
  const handle = createRequestHandler(build, "production");
  const isUnknownPath = unknownPaths(build);
  const siteOrigin = new URL(config.publicUrl).origin;
  const imageOrigins = imageOriginsOf(config);

  await server.register(fastifyStatic, {
    root: path.join(root, "build", "client", "assets"),
    prefix: "/assets/",
    decorateReply: false,
    immutable: true,
    maxAge: "365d",
    index: false,
    // The build writes .br and .gz beside each file (vite.config.ts); they are sent as they are.
    preCompressed: true,
  });

  const limited = pageRateLimits(server);
  const secureCookies = siteOrigin.startsWith("https:");
  const sessionCookie = sessionCookieName(secureCookies);
  const { contentVersion } = shared;
  const rendering = workSlots(options.renderSlots ?? Math.max(2, availableParallelism() * 2));

  const siteInfo = async (): Promise<SiteInfo> => ({
    ...(await shared.siteSettings()),
    publicUrl: config.publicUrl,
  });
  const { renderIslands } = build.entry.module as { renderIslands?: RenderIslands };
  const memberShells = renderIslands ? new MemberShells(MEMBER_SHELLS_BYTES) : undefined;
  const searchShells = new MemberShells(SEARCH_SHELLS_BYTES);
  const memberPages = new PageCache({
    maxBytes: MEMBER_PAGES_BYTES,
    maxAgeMs: MEMBER_PAGE_MAX_AGE_MS,
  });

  /**
   * A page read as a member's page is made, in a render slot: from its address alone (no cookie,
   * no header but what a page needs), for `viewer`, or for every member when `shell` is given.
   */
  const renderMemberPage = async (
    url: URL,
    page: { viewer?: Viewer; shell?: ShellRecorder; nonce: string; theme: Theme },
  ) => {
    const site = await siteInfo();
    return rendering.run(async (aside) => {
      const answer = await handle(new Request(url, { headers: { accept: "text/html" } }), {
        deps,
        site,
        viewer: page.viewer,
        ...(page.shell ? { shell: page.shell } : {}),
        secureCookies,
        cspNonce: page.nonce,
        theme: page.theme,
        limit: () => Promise.resolve(undefined),
        outsideRenderSlot: aside,
      });
      return { response: answer, body: await answer.text() };
    });
  };

  /** A member page's shell: the page rendered for every member. */
  const makeShell = async (url: URL, version: string, theme: Theme) => {
    const recorder = shellRecorder();
    const nonce = randomBytes(16).toString("base64");
    const { response, body } = await renderMemberPage(url, { shell: recorder, nonce, theme });
    if (response.status !== 200 || response.headers.has("set-cookie")) return undefined;
    const headers = [...response.headers].filter(([name]) => name !== "cache-control");
    return cutShell(body, recorder, { version, nonce, status: response.status, headers });
  };

  /**
   * Sends a signed-in member's page from its shell (decision 021) and says "sent"; otherwise (no
   * session, a page that is no shell) the page is rendered whole, for the viewer read here if any.
   */
  const renderForMember = async (
    request: FastifyRequest,
    reply: FastifyReply,
    address: string,
  ): Promise<"sent" | { viewer: Viewer | undefined } | undefined> => {
    if (!memberShells || !renderIslands) return undefined;
    const version = await versionOfPage(contentVersion, address);
    if (version === undefined) return undefined;
    const viewer = await viewerOf(deps, request, secureCookies);
    if (viewer) noteViewer(request, viewer.actor.id);
    if (!viewer || memberPageIsWholeFor(address, viewer)) return { viewer };
    const theme = themeOfRequest(request);
    // The header shows the day: a shell is made again when it changes.
    const day = new Date().toISOString().slice(0, 10);
    const key = `${address} theme=${theme} ${day}`;
    const url = new URL(address, siteOrigin);
    const search = isSearchAddress(address);
    const shells = search ? searchShells : memberShells;
    // A search made afresh spends the member's allowance, as it does for a visitor; one kept costs
    // nothing. Refused, the page is rendered whole for them and says so (never kept).
    if (search && limited && !shells.has(key, version)) {
      if ((await limited(request, "search")) !== undefined) return { viewer };
    }
    const shell = await shells.get(key, version, () =>
      makeShell(url, version, theme).catch((error: unknown) => {
        request.log.error({ err: error }, "could not make a member page's shell");
        throw error;
      }),
    );
    if (!shell) return { viewer };
    // A viewer's page is kept by what makes it (the shell and their parts), so a member who reads
    // it again, their parts unchanged, costs their reads alone; any change is another page.
    const parts = await readParts(shell, viewer);
    const pageKey = `${key}\n${[...parts.values()].join("\n")}`;
    let page = memberPages.get(pageKey, version, Date.now());
    if (!page) {
      const html = composeMemberPage(shell, parts, renderIslands);
      if (options.verifyMemberPages) {
        const whole = await renderMemberPage(url, { viewer, nonce: shell.nonce, theme });
        const differs = firstDifference(html, whole.body);
        if (differs !== undefined) {
          throw new Error(`A member page differs from its whole render at ${address}: ${differs}`);
        }
      }
      const body = Buffer.from(html);
      page = {
        version,
        status: shell.status,
        storedAt: Date.now(),
        contentType: "text/html; charset=utf-8",
        body,
        etag: "",
        csp: pageCsp(inlineScriptHashes(html, shell.nonce), siteOrigin, imageOrigins),
        encoded: new Map(),
      };
      memberPages.set(pageKey, page);
    }
    reply.status(page.status ?? 200);
    for (const [name, value] of shell.headers) void reply.header(name, value);
    void reply
      .header("content-security-policy", page.csp)
      .header("cache-control", "private, no-store")
      .header("vary", "Cookie, Accept-Encoding");
    const encoding = preferredEncoding(request.headers["accept-encoding"]);
    if (!encoding) {
      void reply.send(page.body);
      return "sent";
    }
    void reply
      .header("content-encoding", encoding)
      .send(memberPages.encode(pageKey, page, encoding));
    return "sent";
  };

  const renderPage: RenderPage = async (request, reply) => {
    const asked = new URL(request.url, siteOrigin);
    const memberAddress = mayServeMember(request, sessionCookie)
      ? memberPageAddress(asked.pathname, asked.search)
      : undefined;
    // (A reply is thenable: it is returned here, never from an async function that awaits it.)
    const member =
      memberAddress === undefined
        ? undefined
        : await renderForMember(request, reply, memberAddress);
    if (member === "sent") return reply;
    const address = mayShare(request, sessionCookie)
      ? (sharedPageAddress(asked.pathname, asked.search) ??
        (isUnknownPath(asked.pathname) ? NOT_FOUND_ADDRESS : undefined))
      : undefined;
    // A shared page is made from its address alone (cache on or off), so it shows exactly what it
    // is kept under.
    if (address === undefined) return renderFresh(request, reply, asked, undefined, member);
    const url = new URL(address, siteOrigin);
    const version = await versionOfPage(contentVersion, address);
    if (version === undefined) return renderFresh(request, reply, url, undefined);
    // A reader who chose light or dark gets that theme's render, kept apart from the system one
    // all others share (decision 014).
    const theme = themeOfRequest(request);
    const key = theme === "system" ? address : `${address} theme=${theme}`;
    const cache = isSearchAddress(address) ? shared.searches : shared.cache;
    const cached = cache.get(key, version, Date.now()) ?? (await cache.whenMade(key, version));
    if (cached) return sendShared(request, reply, cache, key, cached, SHARED_PAGE_HEADERS);
    const made = cache.startMaking(key, version);
    try {
      const status = address === NOT_FOUND_ADDRESS ? 404 : 200;
      return await renderFresh(request, reply, url, { key, version, cache, status });
    } finally {
      made();
    }
  };

  const renderFresh = async (
    request: FastifyRequest,
    reply: FastifyReply,
    url: URL,
    /**
     * Where to keep the answer when it may be shared: its address, content version and cache, and
     * the status it is kept with (any other, a 500, is not kept).
     */
    keep: { key: string; version: string; cache: PageCache; status: number } | undefined,
    /** The viewer, when the request's session was read already. */
    known?: { viewer: Viewer | undefined },
  ) => {
    const cspNonce = randomBytes(16).toString("base64");
    const controller = new AbortController();
    // Only a visitor who left before the answer was sent cancels the render; after a finished
    // answer there is nothing to cancel (and an abort would build an error with a stack each time).
    reply.raw.once("close", () => {
      if (!reply.raw.writableFinished) controller.abort();
    });
    const viewer = known ? known.viewer : await viewerOf(deps, request, secureCookies);
    if (viewer) noteViewer(request, viewer.actor.id);
    const site = await siteInfo();
    const { response, body } = await rendering.run(async (aside) => {
      const answer = await handle(toWebRequest(request, url, controller.signal), {
        deps,
        site,
        viewer,
        secureCookies,
        cspNonce,
        theme: themeOfRequest(request),
        limit: (name) => (limited ? limited(request, name) : Promise.resolve(undefined)),
        outsideRenderSlot: aside,
      });
      return { response: answer, body: Buffer.from(await answer.arrayBuffer()) };
    });
    const contentType = response.headers.get("content-type") ?? "text/html; charset=utf-8";
    const html = contentType.startsWith("text/html");

    if (
      keep !== undefined &&
      viewer === undefined &&
      response.status === keep.status &&
      !response.headers.has("set-cookie") &&
      !response.headers.has("cache-control")
    ) {
      const page: CachedPage = {
        version: keep.version,
        status: keep.status,
        storedAt: Date.now(),
        contentType,
        body,
        etag: etagOf(body),
        csp: html
          ? pageCsp(inlineScriptHashes(body.toString("utf8"), cspNonce), siteOrigin, imageOrigins)
          : undefined,
        encoded: new Map(),
      };
      keep.cache.set(keep.key, page);
      return sendShared(request, reply, keep.cache, keep.key, page, SHARED_PAGE_HEADERS);
    }

    if (html)
      void reply.header(
        "content-security-policy",
        pageCsp([`'nonce-${cspNonce}'`], siteOrigin, imageOrigins),
      );
    // A page made for one signed-in person (their e-mail, the admin tables) is never cached.
    if (viewer) void reply.header("cache-control", "private, no-store");
    return sendWebResponse(reply, response, body);
  };

  // Pages take their bodies raw (form posts go to React Router untouched), in a context of their
  // own so the API keeps its JSON and multipart parsers.
  await server.register((pages, _options, done) => {
    // Refused before a byte of the body is read.
    pages.addHook("onRequest", async (request, reply) => {
      if (isCrossOrigin(request, siteOrigin)) {
        await reply.status(403).type("text/plain").send("Cross-site form posts are refused");
      }
    });
    if (options.views) countViews(pages, options.views, new URL(config.publicUrl).hostname);
    pages.removeAllContentTypeParsers();
    const keep = (_request: FastifyRequest, body: Buffer, next: (e: null, b: Buffer) => void) => {
      next(null, body);
    };
    // Plain forms are small; only multipart ones carry an image (7,000,000 bytes at most).
    pages.addContentTypeParser(
      "application/x-www-form-urlencoded",
      { parseAs: "buffer", bodyLimit: 1_048_576 },
      keep,
    );
    pages.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: 8_000_000 }, keep);
    pages.route({
      method: ["GET", "HEAD", "POST"],
      url: "/*",
      handler: (request, reply) =>
        request.url.startsWith("/api/")
          ? reply
              .status(404)
              .send({ message: `Not found: ${request.method} ${request.url.split("?")[0] ?? ""}` })
          : renderPage(request, reply),
    });
    done();
  });
  return renderPage;
}
