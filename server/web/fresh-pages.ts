import { randomBytes } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Viewer } from "../../contract/site-host.js";
import {
  etagOf,
  inlineScriptHashes,
  sendShared,
  type CachedPage,
  type PageCache,
} from "./page-cache.js";
import {
  pageCsp,
  SHARED_PAGE_HEADERS,
  sendWebResponse,
  themeOfRequest,
  toWebRequest,
  viewerOf,
  type PageHost,
} from "./page-requests.js";
import { noteViewer } from "./view-counting.js";

/**
 * Renders a page whole for this request, in a render slot, and keeps it when it may be shared
 * (no viewer, the status it is kept with, no cookie set, no cache header of its own).
 */
export function freshPageRenderer(host: PageHost) {
  const { deps, handle, rendering, siteInfo, secureCookies, siteOrigin, imageOrigins } = host;
  const { limited } = host;
  return async function renderFresh(
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
  ) {
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
    const { response, body } = await rendering.run(async (outsideSlot) => {
      const answer = await handle(toWebRequest(request, url, controller.signal), {
        deps,
        site,
        viewer,
        secureCookies,
        cspNonce,
        theme: themeOfRequest(request),
        limit: (name) => (limited ? limited(request, name) : Promise.resolve(undefined)),
        outsideSlot,
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
}
