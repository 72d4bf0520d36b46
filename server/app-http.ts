import { mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import multipart from "@fastify/multipart";
import rateLimit from "@fastify/rate-limit";
import fastifyStatic from "@fastify/static";
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from "fastify";
import type { Redis as RedisClient } from "ioredis";
import type { S3Storage } from "../core/media/s3-storage.js";
import { isSafeKey } from "../core/media/storage.js";
import type { Clock } from "../core/shared/clock.js";
import { sharedCounter } from "./app-deps.js";
import { CLIENT_TIMEOUTS, type AppOptions } from "./app-options.js";
import { registerSharedAnswers, type SharedAnswers } from "./api/shared-answers.js";
import { imageOrigins, type Config } from "./config.js";
import { registerCompression } from "./plugins/compression.js";
import { registerApiCors } from "./plugins/cors.js";
import { OneLinePerRequest, requestSerializer } from "./plugins/logging.js";
import { sharedLimitStore } from "./plugins/rate-limit-store.js";
import { registerSecurityHeaders } from "./plugins/security-headers.js";

// server/ runs from the source tree (tests, dev) or from dist/server/ (start).
const HERE = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(
  HERE,
  path.basename(path.dirname(HERE)) === "dist" ? "../.." : "..",
);
const PUBLIC_DIR = path.join(ROOT, "public");

function answerRouterError(error: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
  const tooLong = error.code === "FST_ERR_MAX_PARAM_LENGTH";
  void reply.status(tooLong ? 404 : 400).send({ message: tooLong ? "Not found" : "Invalid URL" });
}

const hopsOf = (count: number) => (_address: string, hop: number) => hop < count;

/** The Fastify instance with its logger, body limit, client timeouts and proxy trust. */
export function createServer(config: Config, options: AppOptions) {
  const timeouts = { ...CLIENT_TIMEOUTS, ...options.timeouts };
  return Fastify({
    logger: {
      level: config.logLevel,
      serializers: { req: requestSerializer },
      ...(options.logStream ? { stream: options.logStream } : {}),
    },
    logController: new OneLinePerRequest(),
    bodyLimit: 1_048_576,
    // Fastify leaves all of these off: a client that sends slowly or never reads held its
    // connection (and whatever turn it had) for as long as it liked.
    requestTimeout: timeouts.requestMs,
    connectionTimeout: timeouts.idleMs,
    http: {
      headersTimeout: Math.min(timeouts.headersMs, timeouts.requestMs),
      // How often Node looks for requests past their time (30 s unless the limits are shorter).
      connectionsCheckingInterval: Math.min(30_000, Math.ceil(timeouts.headersMs / 4)),
    },
    // A number means "this many proxies in front": trust that many hops of X-Forwarded-For.
    trustProxy:
      typeof config.trustProxy === "number" ? hopsOf(config.trustProxy) : config.trustProxy,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    // The router refuses some URLs before any route runs; answer them in the same envelope. A
    // parameter longer than any id or token is a malformed id: 404 (DESIGN.md 5).
    frameworkErrors: answerRouterError,
  });
}

/**
 * `/uploads/*`: the files of DATA_DIR/uploads, or the bucket's files read through this server when
 * S3 has no public address of its own. Every stored file has a fresh name, so it never changes.
 */
async function serveUploads(
  server: FastifyInstance,
  uploadsDir: string,
  s3: S3Storage | undefined,
) {
  if (!s3) {
    mkdirSync(uploadsDir, { recursive: true });
    await server.register(fastifyStatic, {
      root: uploadsDir,
      prefix: "/uploads/",
      immutable: true,
      maxAge: "365d",
      index: false,
    });
    return;
  }
  server.get<{ Params: { "*": string } }>("/uploads/*", async (request, reply) => {
    const key = request.params["*"];
    const file = isSafeKey(key) ? await s3.open(key) : undefined;
    if (!file) return reply.status(404).send({ message: "Not found" });
    if (file.etag && request.headers["if-none-match"] === file.etag) {
      file.body.destroy();
      return reply.status(304).header("etag", file.etag).send();
    }
    void reply
      .header("content-type", file.contentType ?? "application/octet-stream")
      .header("cache-control", "public, max-age=31536000, immutable");
    if (file.etag) void reply.header("etag", file.etag);
    if (file.contentLength !== undefined) void reply.header("content-length", file.contentLength);
    return reply.send(file.body);
  });
}

/**
 * What every answer passes through, in order: security headers, CORS, the shared answers' cache,
 * compression, multipart bodies, rate limits, uploads and the public files.
 */
export async function registerHttpBasics(
  server: FastifyInstance,
  config: Config,
  parts: {
    redis: RedisClient | undefined;
    clock: Clock;
    s3: S3Storage | undefined;
    shared: SharedAnswers;
  },
) {
  const { redis, clock, s3, shared } = parts;
  const https = config.publicUrl.startsWith("https:");
  registerSecurityHeaders(server, {
    // Over plain HTTP (a laptop, a private network) these two would break the site.
    hsts: https,
    contentSecurityPolicy: {
      directives: {
        upgradeInsecureRequests: https ? [] : null,
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        imgSrc: ["'self'", "data:", ...imageOrigins(config)],
        frameAncestors: ["'none'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
      },
    },
    // Images are meant to be shown by other sites and apps too.
    crossOriginResourcePolicy: { policy: "cross-origin" },
    referrerPolicy: { policy: "strict-origin-when-cross-origin" },
  });
  // Before the shared answers, which may answer from the cache in their own onRequest hook.
  await registerApiCors(server, config.corsOrigins);
  // Shared answers: registered before compression, so they keep (and compress once) the plain body.
  registerSharedAnswers(server, shared);

  await registerCompression(server);
  await server.register(multipart);

  if (config.rateLimits) {
    await server.register(rateLimit, {
      global: false,
      // One count per limit and address, shared by its routes, its page forms and (through Redis)
      // every instance; while Redis is away, each instance counts on its own.
      store: sharedLimitStore(
        sharedCounter(
          server,
          config,
          redis,
          clock,
          "rate-limit",
          "rate limit counted by this instance only: redis unavailable",
        ),
      ),
      errorResponseBuilder: (_request, context) => ({
        statusCode: 429,
        message: `Too many requests, please try again in ${context.after}`,
      }),
    });
  }

  await serveUploads(server, path.join(config.dataDir, "uploads"), s3);
  await server.register(fastifyStatic, {
    root: PUBLIC_DIR,
    prefix: "/",
    decorateReply: false,
    wildcard: false,
    maxAge: "1d",
    index: false,
  });
}
