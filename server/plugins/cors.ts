import cors, { type FastifyCorsOptions } from "@fastify/cors";
import type { FastifyInstance } from "fastify";

declare module "fastify" {
  interface FastifyContextConfig {
    /** @fastify/cors reads a route's own options here, over the plugin's. */
    cors?: FastifyCorsOptions;
  }
}

/**
 * What a page on a listed origin may do with the API: every method it has, a bearer token and a
 * JSON or multipart body. Never credentials: the API reads no cookie, and the site's own cookies
 * stay with its own pages, so another origin gets no ambient authority from its visitors.
 */
function apiCors(origins: readonly string[]): FastifyCorsOptions {
  return {
    // Any other origin is answered as if there were no CORS: no Access-Control-Allow-Origin, and
    // its preflight finds no route (404).
    origin: (origin, callback) => {
      callback(null, origins.includes(origin ?? ""));
    },
    methods: ["GET", "HEAD", "POST", "PUT", "DELETE"],
    allowedHeaders: ["Authorization", "Content-Type"],
    // A refused caller reads how long to wait (429), as a same-origin one does.
    exposedHeaders: ["Retry-After"],
    credentials: false,
    // Browsers keep a preflight's answer this long (Chromium at most 2 hours) instead of asking
    // before every write; a removed origin loses access at most this late.
    maxAge: 600,
  };
}

/**
 * CORS_ORIGINS: browser calls to `/api` from those origins (an API client hosted elsewhere). The
 * routes under `/api/` carry the options, so nothing else changes by a byte: pages, forms, feeds,
 * images and scripts are the site's own and get no CORS header, not even `Vary: Origin` (which
 * some CDNs will not cache). With no origin listed, nothing is registered. Call before any route.
 */
export async function registerApiCors(server: FastifyInstance, origins: readonly string[]) {
  if (origins.length === 0) return;
  const forApi = apiCors(origins);
  // Its hook runs on every request and does nothing unless the route has options of its own. It
  // runs first, so every answer of the API carries the headers: refusals (401, 404, 429) and the
  // shared answers sent straight from the cache included.
  await server.register(cors, { hook: "onRequest", origin: false });
  server.addHook("onRoute", (route) => {
    if (route.url.startsWith("/api/")) route.config = { ...route.config, cors: forApi };
  });
  // Preflights for every path under /api, answered by the plugin's hook before this handler runs;
  // and unknown calls, whose 404 a client on another origin could not read from the pages'
  // catch-all, which carries no CORS options.
  server.route({
    method: ["GET", "POST", "PUT", "DELETE", "OPTIONS"],
    url: "/api/*",
    config: { docs: { hidden: "preflights and the 404 of unknown calls" } },
    handler: (_request, reply) => {
      reply.callNotFound();
    },
  });
}
