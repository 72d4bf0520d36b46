import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ContentVersion } from "../web/content-version.js";
import { etagOf, sendShared, type CachedPage, type PageCache } from "../web/page-cache.js";

/**
 * The public reads whose answer is the same for everyone, signed in or not: the lists and a post.
 * They are kept like anonymous pages (until any write, at most 30 s) and carry a validator; API
 * clients revalidate every time (`no-cache`), so a client sees its own write at once.
 */
const SHARED_ROUTES = new Set([
  "/api/posts",
  "/api/posts/count",
  "/api/posts/:id",
  "/api/categories",
  "/api/users/user/:id",
]);

/**
 * How clients may keep a shared answer. Vary adds to what the answer already varies on: with
 * CORS_ORIGINS set that is Origin (the Access-Control-Allow-Origin differs by caller), which no
 * cache in between may forget, though the body is the same for every origin.
 */
function sharedApiHeaders(reply: FastifyReply) {
  const earlier = reply.getHeader("vary");
  const fields = (Array.isArray(earlier) ? earlier : [String(earlier ?? "")])
    .flatMap((value) => value.split(","))
    .map((field) => field.trim())
    .filter((field) => field !== "" && field.toLowerCase() !== "accept-encoding");
  return { "cache-control": "no-cache", vary: [...fields, "Accept-Encoding"].join(", ") };
}

export function registerSharedAnswers(
  server: FastifyInstance,
  shared: { cache: PageCache; contentVersion: ContentVersion },
) {
  const { cache, contentVersion } = shared;
  const versions = new WeakMap<FastifyRequest, string>();
  // The requests making an answer others wait for; released once it is kept (or cannot be).
  const making = new WeakMap<FastifyRequest, (made?: CachedPage) => void>();
  const release = (request: FastifyRequest, made?: CachedPage) => {
    making.get(request)?.(made);
    making.delete(request);
  };
  const isShared = (request: FastifyRequest) =>
    (request.method === "GET" || request.method === "HEAD") &&
    SHARED_ROUTES.has(request.routeOptions.url ?? "");

  server.addHook("onRequest", async (request, reply) => {
    if (!isShared(request)) return;
    const version = await contentVersion.current();
    if (version === undefined) return;
    const kept =
      cache.get(request.url, version, Date.now()) ?? (await cache.whenMade(request.url, version));
    if (kept) {
      await sendShared(request, reply, cache, request.url, kept, sharedApiHeaders(reply));
      return;
    }
    // Tagged with the version read before the handler reads the database.
    versions.set(request, version);
    making.set(request, cache.startMaking(request.url, version));
  });
  // Whatever became of the answer (an error, a client gone), nobody waits for it any longer.
  server.addHook("onResponse", (request, _reply, done) => {
    release(request);
    done();
  });
  server.addHook("onRequestAbort", (request, done) => {
    release(request);
    done();
  });

  server.addHook("onSend", async (request, reply, payload) => {
    const version = versions.get(request);
    if (version === undefined || reply.statusCode !== 200 || typeof payload !== "string") {
      release(request);
      return payload;
    }
    const body = Buffer.from(payload);
    const answer: CachedPage = {
      version,
      storedAt: Date.now(),
      contentType: String(reply.getHeader("content-type") ?? "application/json; charset=utf-8"),
      body,
      etag: etagOf(body),
      csp: undefined,
      encoded: new Map(),
    };
    cache.set(request.url, answer);
    release(request, answer);
    void reply.headers(sharedApiHeaders(reply)).header("etag", answer.etag);
    return payload;
  });
}
