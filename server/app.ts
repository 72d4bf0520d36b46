import { mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Writable } from "node:stream";
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
import type { CoreDeps } from "../core/deps.js";
import {
  memoryAttemptCounter,
  redisAttemptCounter,
  uncountedAttempts,
} from "../core/auth/login-attempts.js";
import { createMailer } from "../core/mail/mailer.js";
import { createS3Storage, type S3Storage } from "../core/media/s3-storage.js";
import { createLocalStorage, isSafeKey } from "../core/media/storage.js";
import { systemClock, type Clock } from "../core/shared/clock.js";
import { lazyModule } from "../lib/lazy-module.js";
import { ensureAdmin, type AdminCredentials } from "../core/users/bootstrap-admin.js";
import { migrateToLatest, openDatabase, sqliteFile, type DatabaseHandle } from "../db/connect.js";
import { lazyReadWorker } from "../db/read-worker.js";
import type { QueryWatcher } from "../db/background.js";
import { adminRoutes } from "./api/admin/routes.js";
import { authRoutes } from "./api/auth/routes.js";
import { securityRoutes } from "./api/auth/security-routes.js";
import { categoryRoutes } from "./api/categories/routes.js";
import { commentRoutes } from "./api/comments/routes.js";
import { healthRoutes } from "./api/health/routes.js";
import { integrationRoutes } from "./api/integrations/routes.js";
import { collectApiRoutes, type ApiRoute } from "./api/openapi/document.js";
import { openApiRoutes } from "./api/openapi/routes.js";
import { passwordRoutes } from "./api/password/routes.js";
import { postRoutes } from "./api/posts/routes.js";
import { reportRoutes } from "./api/reports/routes.js";
import { followRoutes } from "./api/follows/routes.js";
import { bookmarkRoutes } from "./api/bookmarks/routes.js";
import { notificationRoutes } from "./api/notifications/routes.js";
import { searchRoutes } from "./api/search/routes.js";
import { siteSettingsRoutes } from "./api/settings/routes.js";
import { userRoutes } from "./api/users/routes.js";
import { imageOrigins, type Config } from "./config.js";
import { registerApiCors } from "./plugins/cors.js";
import { registerCompression } from "./plugins/compression.js";
import { registerSecurityHeaders } from "./plugins/security-headers.js";
import { registerErrorHandling } from "./plugins/errors.js";
import { sharedLimitStore } from "./plugins/rate-limit-store.js";
import { OneLinePerRequest, requestSerializer } from "./plugins/logging.js";
import {
  memoryContentVersion,
  unknownContentVersion,
  redisContentVersion,
} from "./web/content-version.js";
import { feedRoutes } from "./web/feeds.js";
import { siteSettingsReader } from "./web/site-settings.js";
import { PageCache } from "./web/page-cache.js";
import { registerSharedAnswers } from "./api/shared-answers.js";
import { registerWebSite } from "./web/site.js";
import { renderThread } from "../core/posts/render-thread.js";
import { startScheduledPublishing, type ScheduledPublisher } from "./jobs/scheduled-publishing.js";
import { startOutbox, type OutboxWorker } from "./jobs/outbox.js";
import { startViewStats, type ViewStatsWriter } from "./jobs/view-stats.js";
import { forgetPastDays, ViewCounter } from "../core/stats/view-counter.js";
import { statsRoutes } from "./api/stats/routes.js";
import { userSettingsRoutes } from "./api/user-settings/routes.js";

// server/app.ts runs from the source tree (tests, dev) or from dist/server/app.js (start).
const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, path.basename(path.dirname(HERE)) === "dist" ? "../.." : "..");
const PUBLIC_DIR = path.join(ROOT, "public");

function answerRouterError(error: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
  const tooLong = error.code === "FST_ERR_MAX_PARAM_LENGTH";
  void reply.status(tooLong ? 404 : 400).send({ message: tooLong ? "Not found" : "Invalid URL" });
}

/** How long a webhook's receiver may take to answer (DESIGN.md 10). */
const WEBHOOK_TIMEOUT_MS = 10_000;

const hopsOf = (count: number) => (_address: string, hop: number) => hop < count;

const loadRedis = lazyModule<{ Redis: typeof RedisClient }>("ioredis");

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
 * Redis for shared counters and the content version. While it is away, commands fail at once
 * (no queue) or after a second (a hung connection), every caller goes on without it, and the log
 * says so once per outage. Start-up waits a moment for the first connection, not for ever.
 */
async function connectRedis(server: FastifyInstance, url: string) {
  const redis = new (loadRedis().Redis)(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: 1000,
  });
  let down = false;
  redis.on("error", (error) => {
    if (!down) server.log.warn({ err: error }, "redis unavailable; going on without it");
    down = true;
  });
  redis.on("ready", () => {
    if (down) server.log.info("redis available again");
    down = false;
  });
  server.addHook("onClose", async () => {
    await redis.quit().catch(() => {
      redis.disconnect();
    });
  });
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 2000);
    redis.once("ready", () => {
      clearTimeout(timer);
      resolve();
    });
  });
  return redis;
}

/** How long a client may take over its part of an exchange before the connection is ended. */
export interface ClientTimeouts {
  /** Receiving one request, headers and body: a 7 MB image needs about 500 kbit/s to fit in it. */
  requestMs: number;
  /** Receiving the headers alone (a client that trickles them holds a connection for nothing). */
  headersMs: number;
  /**
   * No byte moving either way for this long ends the connection: a body that stopped coming, an
   * answer nobody reads, a request left waiting in a queue.
   */
  idleMs: number;
  /** The longest one answer may hold a turn others wait for (the whole list of posts). */
  turnMs: number;
}

export const CLIENT_TIMEOUTS: ClientTimeouts = {
  requestMs: 120_000,
  headersMs: 20_000,
  idleMs: 30_000,
  turnMs: 60_000,
};

export interface AppOptions {
  /** Where log lines go (tests read them); stdout by default. */
  logStream?: Writable;
  clock?: Clock;
  /** Told the SQL of every query the server runs and whether a job ran it (tests count them). */
  onQuery?: QueryWatcher;
  /** URLs per sitemap file; 50,000 (the protocol's limit) unless a test lowers it. */
  sitemapUrlsMax?: number;
  /** Pages rendered at once; two per core unless a test says. */
  renderSlots?: number;
  /** Tests: render each member page from a shell whole too, failing where they differ. */
  verifyMemberPages?: boolean;
  /** Told once when start-up creates an admin with a generated password. */
  onAdminCreated?: (credentials: AdminCredentials) => void;
  /** Shorter limits for tests that play slow clients. */
  timeouts?: Partial<ClientTimeouts>;
  /** How often to look for posts scheduled on other instances (PUBLISH_CHECK_MS unless a test says). */
  publishCheckMs?: number;
  /** How often to look for due events, mail and webhooks (OUTBOX_CHECK_MS unless a test says). */
  outboxCheckMs?: number;
  /** How often counted views are written (VIEW_FLUSH_MS unless a test says). */
  viewFlushMs?: number;
  /** Agents one address may be a reader by in a day (AGENTS_PER_ADDRESS unless a test says). */
  viewAgentsPerAddress?: number;
  /** Webhooks: how long a receiver may take (tests). */
  webhookTimeoutMs?: number;
  /** SQLite's search_rank extension: the built one unless a test says another, or null for none. */
  searchRankExtension?: string | null;
}

export interface App {
  server: FastifyInstance;
  deps: CoreDeps;
  database: DatabaseHandle;
  /** Every route under /api with its docs: what the API reference is made from. */
  apiRoutes: readonly ApiRoute[];
}

/** Builds the whole host: database (migrated), adapters, plugins and routes. Does not listen. */
export async function buildApp(config: Config, options: AppOptions = {}): Promise<App> {
  const timeouts = { ...CLIENT_TIMEOUTS, ...options.timeouts };
  const server = Fastify({
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
  // Every route under /api as it is registered: the API reference is made from it.
  const apiRoutes = collectApiRoutes(server);

  const database = openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    onIdleError: (error) => {
      server.log.warn({ err: error }, "database connection dropped; it will be reopened");
    },
    ...(options.onQuery ? { onQuery: options.onQuery } : {}),
    ...(options.searchRankExtension !== undefined
      ? { searchRankExtension: options.searchRankExtension }
      : {}),
  });
  server.addHook("onClose", () => database.close());
  await migrateToLatest(database.db);
  // Searches rank with search_rank where it is built (decision 015), and say so where not.
  const ranking = database.searchRanking;
  if (ranking?.rank === "bm25") {
    server.log.warn(`searches rank with FTS5's slower bm25: ${ranking.why}`);
  }
  // Full-text searches read SQLite on a thread of their own (decision 015).
  const offThread =
    database.engine === "sqlite"
      ? lazyReadWorker(
          sqliteFile(config.dataDir),
          options.onQuery,
          ranking?.rank === "search_rank" ? ranking.extension : undefined,
        )
      : undefined;
  if (offThread) server.addHook("onClose", () => offThread.close());

  const redis = config.redisUrl ? await connectRedis(server, config.redisUrl) : undefined;
  const clock = options.clock ?? systemClock;
  const uploadsDir = path.join(config.dataDir, "uploads");
  const s3 = config.s3
    ? createS3Storage({
        ...config.s3,
        publicBaseUrl: config.s3.publicUrl ?? `${config.publicUrl}/uploads`,
      })
    : undefined;
  if (s3) {
    server.addHook("onClose", () => {
      s3.close();
    });
  }
  const contentVersion = !config.pageCache
    ? unknownContentVersion
    : redis
      ? redisContentVersion(redis, `${config.redisPrefix}content-version`, (error) => {
          server.log.warn(
            { err: error },
            "content version unavailable; answering without the cache",
          );
        })
      : memoryContentVersion();
  let publisher: ScheduledPublisher | undefined;
  let outbox: OutboxWorker | undefined;
  let viewStats: ViewStatsWriter | undefined;
  const bodies = renderThread();
  server.addHook("onClose", () => bodies.close());
  const deps: CoreDeps = {
    db: database.db,
    ...(offThread ? { offThread } : {}),
    ...(ranking ? { searchRank: ranking.rank } : {}),
    clock,
    renderMarkdown: (source, options) => bodies.render(source, options),
    // Moved on by the services that change what visitors see, before their answer leaves, so the
    // next request on any instance renders afresh (decision 005).
    contentChanged: (scope) =>
      contentVersion.bump(scope).catch((error: unknown) => {
        server.log.error({ err: error }, "could not move the content version on");
      }),
    newAccountBrakes: config.newAccountLimits,
    webhooks: {
      allowPrivate: config.webhookAllowPrivate,
      timeoutMs: options.webhookTimeoutMs ?? WEBHOOK_TIMEOUT_MS,
    },
    queued: () => outbox?.wake(),
    loginAttempts: !config.rateLimits
      ? uncountedAttempts
      : redis
        ? redisAttemptCounter(redis, {
            prefix: config.redisPrefix,
            name: "login-failures",
            fallback: memoryAttemptCounter(clock),
            onError: (error) => {
              server.log.warn(
                { err: error },
                "sign-in attempts counted by this instance only: redis unavailable",
              );
            },
          })
        : memoryAttemptCounter(clock),
    storage: s3 ?? createLocalStorage(uploadsDir, `${config.publicUrl}/uploads`),
    mailer: createMailer({
      smtpUrl: config.mail.smtpUrl,
      from: config.mail.from,
      outboxDir: path.join(config.dataDir, "mail"),
      onOutbox: (file, message) => {
        server.log.info({ file, link: message.link }, "mail written to the outbox");
      },
    }),
    postScheduled: (at) => publisher?.scheduled(at),
    log: server.log,
    site: {
      title: config.site.title,
      publicUrl: config.publicUrl,
      mailLinkUrl: config.mailLinkUrl,
      defaultAvatarUrl: `${config.publicUrl}/images/default-avatar.svg`,
    },
  };

  // Scheduled posts go live from the moment the server listens until it closes (decision 011).
  server.addHook("onReady", (done) => {
    publisher = startScheduledPublishing(deps, {
      log: server.log,
      checkEveryMs: options.publishCheckMs,
    });
    // Events are dispatched, conversation mail and webhooks sent, from the outbox (decision 027).
    outbox = startOutbox(deps, { log: server.log, checkEveryMs: options.outboxCheckMs });
    // Counted views are written in batches (decision 026).
    if (views)
      viewStats = startViewStats(views, { log: server.log, flushEveryMs: options.viewFlushMs });
    done();
  });
  server.addHook("preClose", async () => {
    await publisher?.stop();
    await outbox?.stop();
    await viewStats?.stop();
  });

  // A refusal stops start-up: close what is open (the database) so the caller can report and exit.
  const created = await ensureAdmin(deps, config.admin).catch(async (error: unknown) => {
    await server.close();
    throw error;
  });
  if (created) options.onAdminCreated?.(created);

  // Views of post pages, counted in memory and written in batches (decision 026). The day's salt
  // is read before the first page, so readers are told apart from the first view.
  // (The time is read plainly: systemClock moves a millisecond on for every call within one, which
  // thousands of views a second would push ahead of the wall.)
  const views = config.viewCounting
    ? new ViewCounter(
        { db: deps.db, log: deps.log, clock: options.clock },
        options.viewAgentsPerAddress,
      )
    : undefined;
  // What past days left (and, with counting off, today's salt and hashes) is forgotten either way.
  await (views ? views.prepare() : forgetPastDays(deps.db, deps.clock(), false)).catch(
    (error: unknown) => {
      server.log.warn({ err: error }, "could not prepare the day's visitor salt");
    },
  );

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
  // What pages, feeds and GET /api/settings say about the site: saved by admins, SITE_* until then.
  const siteDefaults = {
    title: config.site.title,
    welcome: config.site.welcome,
    contactPhone: config.site.contactPhone,
    contactEmail: config.site.contactEmail,
  };
  const siteSettings = siteSettingsReader(deps, siteDefaults, contentVersion);
  const shared = {
    cache: new PageCache({ maxBytes: 32 * 1024 * 1024, maxAgeMs: 30_000 }),
    // Searches are kept too, in a budget of their own: any text is a query, so a run of searches
    // (or someone inventing them) can push out only other searches, never the pages (decision 015).
    searches: new PageCache({ maxBytes: 4 * 1024 * 1024, maxAgeMs: 30_000 }),
    contentVersion,
    siteSettings,
  };
  registerSharedAnswers(server, shared);

  await registerCompression(server);
  await server.register(multipart);

  if (config.rateLimits) {
    await server.register(rateLimit, {
      global: false,
      // One count per limit and address, shared by its routes, its page forms and (through Redis)
      // every instance; while Redis is away, each instance counts on its own.
      store: sharedLimitStore(
        redis
          ? redisAttemptCounter(redis, {
              prefix: config.redisPrefix,
              name: "rate-limit",
              fallback: memoryAttemptCounter(clock),
              onError: (error) => {
                server.log.warn(
                  { err: error },
                  "rate limit counted by this instance only: redis unavailable",
                );
              },
            })
          : memoryAttemptCounter(clock),
      ),
      errorResponseBuilder: (_request, context) => ({
        statusCode: 429,
        message: `Too many requests, please try again in ${context.after}`,
      }),
    });
  }

  await serveUploads(server, uploadsDir, s3);
  await server.register(fastifyStatic, {
    root: PUBLIC_DIR,
    prefix: "/",
    decorateReply: false,
    wildcard: false,
    maxAge: "1d",
    index: false,
  });

  registerErrorHandling(server);
  const renderPage = await registerWebSite(server, deps, config, ROOT, shared, {
    renderSlots: options.renderSlots,
    verifyMemberPages: options.verifyMemberPages,
    views,
  });
  healthRoutes(server, deps);
  feedRoutes(server, deps, config, contentVersion, {
    sitemapUrlsMax: options.sitemapUrlsMax,
    siteSettings,
  });
  authRoutes(server, deps, renderPage);
  securityRoutes(server, deps);
  passwordRoutes(server, deps);
  userRoutes(server, deps);
  postRoutes(server, deps, { turnMs: timeouts.turnMs });
  commentRoutes(server, deps);
  categoryRoutes(server, deps);
  adminRoutes(server, deps);
  reportRoutes(server, deps);
  followRoutes(server, deps);
  bookmarkRoutes(server, deps);
  notificationRoutes(server, deps);
  siteSettingsRoutes(server, deps, siteSettings);
  searchRoutes(server, deps);
  userSettingsRoutes(server, deps);
  integrationRoutes(server, deps);
  statsRoutes(server, deps);
  openApiRoutes(server, apiRoutes, config, siteSettings);

  return { server, deps, database, apiRoutes };
}
