import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { waitWithoutIdleLimit } from "../waiting.js";
import type { ContentVersion } from "../web/content-version.js";
import { etagOf, sendShared, type CachedPage, type PageCache } from "../web/page-cache.js";

/**
 * The public reads whose answer is the same for everyone, signed in or not: the lists and a post,
 * each with the query parameters its handler reads. They are kept like anonymous pages (until
 * content changes, at most 30 s) and carry a validator; API clients revalidate every time
 * (`no-cache`), so a client sees its own write at once.
 */
const SHARED_ROUTES = new Map<string, readonly string[]>([
  ["/api/posts", ["pageNumber", "category"]],
  ["/api/posts/count", []],
  ["/api/posts/:id", []],
  ["/api/categories", []],
  ["/api/users/user/:id", ["pageNumber"]],
  // Kept apart (`searches`): any text is a query, and they must never push the pages out.
  ["/api/search", ["q", "pageNumber"]],
]);

/** The routes whose answers are kept in the searches' own budget (decision 015). */
const SEARCH_ROUTES = new Set(["/api/search"]);

/** Answers of shared routes that are one viewer's own (an author reading their draft). */
const privateAnswers = new WeakSet<FastifyRequest>();

/** Keeps this answer out of the shared ones, though its route's answers are otherwise shared. */
export function answerPrivately(request: FastifyRequest) {
  privateAnswers.add(request);
}

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

/**
 * What a shared read is kept under: its route, its path parameters and the parameters it reads, as
 * the handler receives them. Another spelling of the same request (a `?utm_source=`, a
 * cache-buster, a percent-encoded id, a trailing slash) finds the same answer, not a new render.
 */
function keyOf(request: FastifyRequest, route: string, reads: readonly string[]) {
  const query: Partial<Record<string, unknown>> =
    typeof request.query === "object" && request.query !== null ? request.query : {};
  return JSON.stringify([route, request.params, reads.map((name) => query[name] ?? null)]);
}

export function registerSharedAnswers(
  server: FastifyInstance,
  shared: { cache: PageCache; searches: PageCache; contentVersion: ContentVersion },
) {
  const { contentVersion } = shared;
  const keeping = new WeakMap<FastifyRequest, { key: string; version: string; cache: PageCache }>();
  // The requests making an answer others wait for; released once it is kept (or cannot be).
  const making = new WeakMap<FastifyRequest, (made?: CachedPage) => void>();
  const release = (request: FastifyRequest, made?: CachedPage) => {
    making.get(request)?.(made);
    making.delete(request);
  };
  const sharedKeyOf = (request: FastifyRequest) => {
    if (request.method !== "GET" && request.method !== "HEAD") return undefined;
    const route = request.routeOptions.url ?? "";
    const reads = SHARED_ROUTES.get(route);
    return (
      reads && {
        key: keyOf(request, route, reads),
        cache: SEARCH_ROUTES.has(route) ? shared.searches : shared.cache,
      }
    );
  };

  server.addHook("onRequest", async (request, reply) => {
    const kept = sharedKeyOf(request);
    if (kept === undefined) return;
    const { key, cache } = kept;
    const version = await contentVersion.current();
    if (version === undefined) return;
    const answer =
      cache.get(key, version, Date.now()) ??
      (await waitWithoutIdleLimit(request, cache.whenMade(key, version)));
    if (answer) {
      await sendShared(request, reply, cache, key, answer, sharedApiHeaders(reply));
      return;
    }
    // Tagged with the version read before the handler reads the database.
    making.set(request, cache.startMaking(key, version));
    keeping.set(request, { key, version, cache });
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
    const keep = keeping.get(request);
    if (privateAnswers.has(request)) {
      release(request);
      void reply.header("cache-control", "private, no-store");
      return payload;
    }
    if (keep === undefined || reply.statusCode !== 200 || typeof payload !== "string") {
      release(request);
      return payload;
    }
    const body = Buffer.from(payload);
    const answer: CachedPage = {
      version: keep.version,
      storedAt: Date.now(),
      contentType: String(reply.getHeader("content-type") ?? "application/json; charset=utf-8"),
      body,
      etag: etagOf(body),
      csp: undefined,
      encoded: new Map(),
    };
    keep.cache.set(keep.key, answer);
    release(request, answer);
    void reply.headers(sharedApiHeaders(reply)).header("etag", answer.etag);
    return payload;
  });
}
