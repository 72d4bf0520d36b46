import { availableParallelism } from "node:os";
import { existsSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import fastifyStatic from "@fastify/static";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { createRequestHandler, type ServerBuild } from "react-router";
import type { SiteInfo } from "../../contract/site-host.js";
import { sessionCookieName } from "../../contract/cookies.js";
import type { CoreDeps } from "../../core/deps.js";
import { workSlots } from "../../core/shared/work-slots.js";
import type { ViewCounter } from "../../core/stats/view-counter.js";
import { imageOrigins as imageOriginsOf, type Config } from "../config.js";
import { versionsOfPage, type ContentVersion } from "./content-version.js";
import { freshPageRenderer } from "./fresh-pages.js";
import { memberPageAddress, type RenderIslands } from "./member-pages.js";
import { memberPageServer } from "./member-serving.js";
import {
  isSearchAddress,
  NOT_FOUND_ADDRESS,
  sendShared,
  sharedPageAddress,
  type PageCache,
} from "./page-cache.js";
import {
  isCrossOrigin,
  mayServeMember,
  mayShare,
  pageRateLimits,
  SHARED_PAGE_HEADERS,
  themeOfRequest,
  unknownPaths,
  type PageHost,
} from "./page-requests.js";
import type { SiteSettingsReader } from "./site-settings.js";
import { countViews } from "./view-counting.js";

export type RenderPage = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

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
  const host: PageHost = {
    deps,
    handle,
    rendering,
    siteInfo,
    secureCookies,
    siteOrigin,
    imageOrigins: imageOriginsOf(config),
    contentVersion,
    limited,
  };
  const { renderForMember, composeForVisitor } = memberPageServer({
    ...host,
    islands: build.entry.module as { renderIslands?: RenderIslands },
    verifyMemberPages: options.verifyMemberPages,
  });
  const renderFresh = freshPageRenderer(host);

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
    const versions = await versionsOfPage(contentVersion, address);
    if (versions === undefined) return renderFresh(request, reply, url, undefined);
    const version = versions.page;
    // A reader who chose light or dark gets that theme's render, kept apart from the system one
    // all others share (decision 014).
    const theme = themeOfRequest(request);
    const key = theme === "system" ? address : `${address} theme=${theme}`;
    const cache = isSearchAddress(address) ? shared.searches : shared.cache;
    const cached = cache.get(key, version, Date.now()) ?? (await cache.whenMade(key, version));
    if (cached) return sendShared(request, reply, cache, key, cached, SHARED_PAGE_HEADERS);
    const made = cache.startMaking(key, version);
    try {
      // A post page is put together from the visitors' shell and its likes and comments
      // (decision 029): a like or a comment makes no page again.
      const composed = await composeForVisitor(request, address, versions);
      if (composed) {
        cache.set(key, composed);
        return await sendShared(request, reply, cache, key, composed, SHARED_PAGE_HEADERS);
      }
      const status = address === NOT_FOUND_ADDRESS ? 404 : 200;
      return await renderFresh(request, reply, url, { key, version, cache, status });
    } finally {
      made();
    }
  };

  await registerPages(server, { siteOrigin, renderPage, views: options.views, config });
  return renderPage;
}

/**
 * Pages take their bodies raw (form posts go to React Router untouched), in a context of their
 * own so the API keeps its JSON and multipart parsers.
 */
async function registerPages(
  server: FastifyInstance,
  parts: {
    siteOrigin: string;
    renderPage: RenderPage;
    views: ViewCounter | undefined;
    config: Config;
  },
) {
  const { siteOrigin, renderPage, views, config } = parts;
  await server.register((pages, _options, done) => {
    // Refused before a byte of the body is read.
    pages.addHook("onRequest", async (request, reply) => {
      if (isCrossOrigin(request, siteOrigin)) {
        await reply.status(403).type("text/plain").send("Cross-site form posts are refused");
      }
    });
    if (views) countViews(pages, views, new URL(config.publicUrl).hostname);
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
}
