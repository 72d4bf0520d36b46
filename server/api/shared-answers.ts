import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { waitWithoutIdleLimit } from "../waiting.js";
import { listStillCurrent, postVersion, type ContentVersion } from "../web/content-version.js";
import { etagOf, sendShared, type CachedPage, type PageCache } from "../web/page-cache.js";

/**
 * The public reads whose answer is the same for everyone, signed in or not: the lists and a post,
 * each with the query parameters its handler reads. They are kept like anonymous pages (until
 * content changes, at most 30 s) and carry a validator; API clients revalidate every time
 * (`no-cache`), so a client sees its own write at once.
 */
const SHARED_ROUTES = new Map<string, { reads: readonly string[]; shows: Shows }>([
  ["/api/posts", { reads: ["pageNumber", "category", "tag"], shows: "listed" }],
  ["/api/tags", { reads: ["pageNumber"], shows: "site" }],
  ["/api/posts/count", { reads: [], shows: "site" }],
  ["/api/posts/:id", { reads: [], shows: "post" }],
  ["/api/categories", { reads: [], shows: "site" }],
  ["/api/users/user/:id", { reads: ["pageNumber"], shows: "listed" }],
  // Kept apart (`searches`): any text is a query, and they must never push the pages out.
  ["/api/search", { reads: ["q", "pageNumber"], shows: "listed" }],
]);

/**
 * What of posts' likes and comments an answer shows, so that a like or a comment drops only what
 * shows it (decision 021): nothing (`site`), the post of the path's id whole (`post`), or the
 * counts of each post it lists (`listed`).
 */
type Shows = "site" | "post" | "listed";

/**
 * The posts a list answer shows: an array of posts, or `{ posts }` (a search). Undefined for any
 * other shape, and such an answer is not kept: it could not be dropped when a count in it changes.
 */
function listedPostIds(payload: unknown): string[] | undefined {
  const items =
    typeof payload === "object" && payload !== null && "posts" in payload ? payload.posts : payload;
  if (!Array.isArray(items)) return undefined;
  const ids: string[] = [];
  for (const item of items as unknown[]) {
    const id = typeof item === "object" && item !== null && "_id" in item ? item._id : undefined;
    if (typeof id !== "string") return undefined;
    ids.push(id);
  }
  return ids;
}

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

/** The shared answers' caches: pages and calls, and searches in a budget of their own. */
export interface SharedAnswers {
  cache: PageCache;
  searches: PageCache;
  contentVersion: ContentVersion;
}

export function registerSharedAnswers(server: FastifyInstance, shared: SharedAnswers) {
  const { contentVersion } = shared;
  const keeping = new WeakMap<
    FastifyRequest,
    { key: string; version: string; cache: PageCache; count?: number }
  >();
  // The posts each list being made shows, read from its answer before it is written out.
  const listing = new WeakMap<FastifyRequest, string[] | undefined>();
  // The requests making an answer others wait for; released once it is kept (or cannot be).
  const making = new WeakMap<FastifyRequest, (made?: CachedPage) => void>();
  const release = (request: FastifyRequest, made?: CachedPage) => {
    making.get(request)?.(made);
    making.delete(request);
  };
  const sharedKeyOf = (request: FastifyRequest) => {
    if (request.method !== "GET" && request.method !== "HEAD") return undefined;
    const route = request.routeOptions.url ?? "";
    const sharing = SHARED_ROUTES.get(route);
    return (
      sharing && {
        key: keyOf(request, route, sharing.reads),
        shows: sharing.shows,
        cache: SEARCH_ROUTES.has(route) ? shared.searches : shared.cache,
      }
    );
  };

  /**
   * Where content has got to for this answer, read before the handler reads the database: the
   * version it is kept under, the flight others making it join, and a list's count of changes.
   */
  const whereContentIs = async (
    request: FastifyRequest,
    key: string,
    cache: PageCache,
    shows: Shows,
  ) => {
    if (shows === "site") {
      const version = await contentVersion.current();
      return version === undefined ? undefined : { version, flight: version };
    }
    if (shows === "post") {
      const { id } = request.params as { id: string };
      const state = await contentVersion.state([id]);
      if (state === undefined) return undefined;
      const version = postVersion(state);
      return { version, flight: version };
    }
    // A list is current while none of the posts it shows changed since it was made: learn which
    // those are from the answer kept, and read where they (and the site) have got to at once.
    const kept = cache.peek(key);
    const state = await contentVersion.state(kept?.listed?.ids ?? []);
    if (state === undefined) return undefined;
    const version = `${state.site}/${state.epoch}`;
    const current =
      kept !== undefined &&
      kept.listed !== undefined &&
      cache.peek(key) === kept &&
      listStillCurrent(kept.listed.count, state);
    return {
      version,
      // Only makers that started from the same count: a list joined must show every change.
      flight: `${version}/${String(state.count)}`,
      count: state.count,
      stale: !current,
    };
  };

  server.addHook("onRequest", async (request, reply) => {
    const kept = sharedKeyOf(request);
    if (kept === undefined) return;
    const { key, cache, shows } = kept;
    const content = await whereContentIs(request, key, cache, shows);
    if (content === undefined) return;
    const { version, flight } = content;
    const answer =
      (content.stale ? undefined : cache.get(key, version, Date.now())) ??
      (await waitWithoutIdleLimit(request, cache.whenMade(key, version, flight)));
    if (answer) {
      await sendShared(request, reply, cache, key, answer, sharedApiHeaders(reply));
      return;
    }
    // Tagged with the version read before the handler reads the database.
    making.set(request, cache.startMaking(key, flight));
    keeping.set(request, {
      key,
      version,
      cache,
      ...(content.count === undefined ? {} : { count: content.count }),
    });
    if (shows === "listed") listing.set(request, undefined);
  });
  server.addHook("preSerialization", async (request, _reply, payload) => {
    if (listing.has(request)) listing.set(request, listedPostIds(payload));
    return payload;
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
    if (
      keep === undefined ||
      reply.statusCode !== 200 ||
      (typeof payload !== "string" && !Buffer.isBuffer(payload)) ||
      reply.hasHeader("content-encoding")
    ) {
      release(request);
      return payload;
    }
    let listed: CachedPage["listed"];
    if (keep.count !== undefined) {
      const ids = listing.get(request);
      if (ids === undefined) {
        release(request);
        return payload;
      }
      listed = { ids, count: keep.count };
    }
    const body = typeof payload === "string" ? Buffer.from(payload) : payload;
    const answer: CachedPage = {
      ...(listed ? { listed } : {}),
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
