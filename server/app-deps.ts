import path from "node:path";
import type { FastifyInstance } from "fastify";
import type { Redis as RedisClient } from "ioredis";
import {
  memoryAttemptCounter,
  redisAttemptCounter,
  uncountedAttempts,
  type AttemptCounter,
} from "../core/auth/login-attempts.js";
import type { CoreDeps } from "../core/deps.js";
import { createMailer } from "../core/mail/mailer.js";
import { createS3Storage, type S3Storage } from "../core/media/s3-storage.js";
import { createLocalStorage } from "../core/media/storage.js";
import { renderThread } from "../core/posts/render-thread.js";
import { systemClock, type Clock } from "../core/shared/clock.js";
import { forgetPastDays, ViewCounter } from "../core/stats/view-counter.js";
import { migrateToLatest, openDatabase, sqliteFile } from "../db/connect.js";
import { lazyReadWorker } from "../db/read-worker.js";
import { lazyModule } from "../lib/lazy-module.js";
import type { AppOptions } from "./app-options.js";
import type { Config } from "./config.js";
import { startOutbox, type OutboxWorker } from "./jobs/outbox.js";
import { startScheduledPublishing, type ScheduledPublisher } from "./jobs/scheduled-publishing.js";
import { startViewStats, type ViewStatsWriter } from "./jobs/view-stats.js";
import {
  memoryContentVersion,
  redisContentVersion,
  unknownContentVersion,
  type ContentVersion,
} from "./web/content-version.js";

/** How long a webhook's receiver may take to answer (DESIGN.md 10). */
const WEBHOOK_TIMEOUT_MS = 10_000;

const loadRedis = lazyModule<{ Redis: typeof RedisClient }>("ioredis");

/**
 * Redis for shared counters and the content version. While it is away, commands fail at once
 * (no queue) or after a second (a hung connection), every caller goes on without it, and the log
 * says so once per outage. Start-up waits a moment for the first connection, not for ever.
 */
export async function connectRedis(server: FastifyInstance, url: string) {
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

/** The database, migrated, and the thread full-text searches read SQLite on (decision 015). */
export async function openData(server: FastifyInstance, config: Config, options: AppOptions) {
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
  const offThread =
    database.engine === "sqlite"
      ? lazyReadWorker(
          sqliteFile(config.dataDir),
          options.onQuery,
          ranking?.rank === "search_rank" ? ranking.extension : undefined,
        )
      : undefined;
  if (offThread) server.addHook("onClose", () => offThread.close());
  return { database, offThread, ranking };
}

type Data = Awaited<ReturnType<typeof openData>>;

/** Where the content version lives: Redis, this process, or nowhere when the cache is off. */
export function contentVersionOf(
  server: FastifyInstance,
  config: Config,
  redis: RedisClient | undefined,
): ContentVersion {
  if (!config.pageCache) return unknownContentVersion;
  if (!redis) return memoryContentVersion();
  return redisContentVersion(redis, `${config.redisPrefix}content-version`, (error) => {
    server.log.warn({ err: error }, "content version unavailable; answering without the cache");
  });
}

/** A counter shared through Redis by every instance, or this instance's own without it. */
export function sharedCounter(
  server: FastifyInstance,
  config: Config,
  redis: RedisClient | undefined,
  clock: Clock,
  name: string,
  whenAlone: string,
): AttemptCounter {
  if (!redis) return memoryAttemptCounter(clock);
  return redisAttemptCounter(redis, {
    prefix: config.redisPrefix,
    name,
    fallback: memoryAttemptCounter(clock),
    onError: (error) => {
      server.log.warn({ err: error }, whenAlone);
    },
  });
}

/** Where uploads are kept: the S3 bucket when one is set, DATA_DIR/uploads otherwise. */
export function s3StorageOf(server: FastifyInstance, config: Config) {
  if (!config.s3) return undefined;
  const s3 = createS3Storage({
    ...config.s3,
    publicBaseUrl: config.s3.publicUrl ?? `${config.publicUrl}/uploads`,
  });
  server.addHook("onClose", () => {
    s3.close();
  });
  return s3;
}

/** The jobs that run while the server listens; the services wake them through their deps. */
export interface Jobs {
  publisher?: ScheduledPublisher;
  outbox?: OutboxWorker;
  viewStats?: ViewStatsWriter;
}

/** What the services are given: the database, the adapters, and the jobs to wake. */
export function buildDeps(
  server: FastifyInstance,
  config: Config,
  options: AppOptions,
  parts: {
    data: Data;
    redis: RedisClient | undefined;
    s3: S3Storage | undefined;
    contentVersion: ContentVersion;
    jobs: Jobs;
  },
): CoreDeps {
  const { data, redis, s3, contentVersion, jobs } = parts;
  const clock = options.clock ?? systemClock;
  const bodies = renderThread();
  server.addHook("onClose", () => bodies.close());
  return {
    db: data.database.db,
    ...(data.offThread ? { offThread: data.offThread } : {}),
    ...(data.ranking ? { searchRank: data.ranking.rank } : {}),
    clock,
    renderMarkdown: (source, renderOptions) => bodies.render(source, renderOptions),
    // Moved on by the services that change what visitors see, before their answer leaves, so the
    // next request on any instance renders afresh (decision 005).
    contentChanged: (scope) =>
      contentVersion.bump(scope).catch((error: unknown) => {
        server.log.error({ err: error }, "could not move the content version on");
      }),
    newAccountBrakes: config.newAccountLimits,
    newsletterRate: config.newsletterRate,
    // React Email and the CSS inliner load with the first mail, not with the server.
    mailTemplates: () => import("../core/newsletter/newsletter-mail.js"),
    webhooks: {
      allowPrivate: config.webhookAllowPrivate,
      timeoutMs: options.webhookTimeoutMs ?? WEBHOOK_TIMEOUT_MS,
    },
    queued: () => jobs.outbox?.wake(),
    loginAttempts: config.rateLimits
      ? sharedCounter(
          server,
          config,
          redis,
          clock,
          "login-failures",
          "sign-in attempts counted by this instance only: redis unavailable",
        )
      : uncountedAttempts,
    storage:
      s3 ?? createLocalStorage(path.join(config.dataDir, "uploads"), `${config.publicUrl}/uploads`),
    mailer: createMailer({
      smtpUrl: config.mail.smtpUrl,
      from: config.mail.from,
      dkim: config.mail.dkim,
      outboxDir: path.join(config.dataDir, "mail"),
      onOutbox: (file, message) => {
        server.log.info({ file, link: message.link }, "mail written to the outbox");
      },
    }),
    postScheduled: (at) => jobs.publisher?.scheduled(at),
    log: server.log,
    site: {
      title: config.site.title,
      publicUrl: config.publicUrl,
      mailLinkUrl: config.mailLinkUrl,
      defaultAvatarUrl: `${config.publicUrl}/images/default-avatar.svg`,
    },
  };
}

/**
 * Views of post pages, counted in memory and written in batches (decision 026). The day's salt
 * is read before the first page, so readers are told apart from the first view. (The time is read
 * plainly: systemClock moves a millisecond on for every call within one, which thousands of views
 * a second would push ahead of the wall.)
 */
export async function prepareViews(
  server: FastifyInstance,
  config: Config,
  deps: CoreDeps,
  options: AppOptions,
) {
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
  return views;
}

/** Starts the jobs when the server listens and stops them, their work done, when it closes. */
export function runJobs(
  server: FastifyInstance,
  deps: CoreDeps,
  options: AppOptions,
  jobs: Jobs,
  views: ViewCounter | undefined,
) {
  server.addHook("onReady", (done) => {
    // Scheduled posts go live from the moment the server listens until it closes (decision 011).
    jobs.publisher = startScheduledPublishing(deps, {
      log: server.log,
      checkEveryMs: options.publishCheckMs,
    });
    // Events are dispatched, conversation mail and webhooks sent, from the outbox (decision 027).
    jobs.outbox = startOutbox(deps, { log: server.log, checkEveryMs: options.outboxCheckMs });
    // Counted views are written in batches (decision 026).
    if (views) {
      jobs.viewStats = startViewStats(views, {
        log: server.log,
        flushEveryMs: options.viewFlushMs,
      });
    }
    done();
  });
  server.addHook("preClose", async () => {
    await jobs.publisher?.stop();
    await jobs.outbox?.stop();
    await jobs.viewStats?.stop();
  });
}
