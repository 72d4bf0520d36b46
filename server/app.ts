import type { FastifyInstance } from "fastify";
import type { CoreDeps } from "../core/deps.js";
import { systemClock } from "../core/shared/clock.js";
import { ensureAdmin } from "../core/users/bootstrap-admin.js";
import type { DatabaseHandle } from "../db/connect.js";
import {
  buildDeps,
  connectRedis,
  contentVersionOf,
  openData,
  prepareViews,
  runJobs,
  s3StorageOf,
  type Jobs,
} from "./app-deps.js";
import { createServer, registerHttpBasics, ROOT } from "./app-http.js";
import { CLIENT_TIMEOUTS, type AppOptions } from "./app-options.js";
import { adminRoutes } from "./api/admin/routes.js";
import { authRoutes } from "./api/auth/routes.js";
import { securityRoutes } from "./api/auth/security-routes.js";
import { bookmarkRoutes } from "./api/bookmarks/routes.js";
import { categoryRoutes } from "./api/categories/routes.js";
import { pageRoutes } from "./api/pages/routes.js";
import { seriesRoutes } from "./api/series/routes.js";
import { commentRoutes } from "./api/comments/routes.js";
import { followRoutes } from "./api/follows/routes.js";
import { healthRoutes } from "./api/health/routes.js";
import { integrationRoutes } from "./api/integrations/routes.js";
import { newsletterRoutes } from "./api/newsletter/routes.js";
import { notificationRoutes } from "./api/notifications/routes.js";
import { collectApiRoutes, type ApiRoute } from "./api/openapi/document.js";
import { openApiRoutes } from "./api/openapi/routes.js";
import { passwordRoutes } from "./api/password/routes.js";
import { postRoutes } from "./api/posts/routes.js";
import { postAnswers } from "./api/posts/post-answers.js";
import { reportRoutes } from "./api/reports/routes.js";
import { searchRoutes } from "./api/search/routes.js";
import { siteSettingsRoutes } from "./api/settings/routes.js";
import { statsRoutes } from "./api/stats/routes.js";
import { userSettingsRoutes } from "./api/user-settings/routes.js";
import { userRoutes } from "./api/users/routes.js";
import type { Config } from "./config.js";
import { registerErrorHandling } from "./plugins/errors.js";
import { feedRoutes } from "./web/feeds.js";
import { PageCache } from "./web/page-cache.js";
import { siteSettingsReader } from "./web/site-settings.js";
import { registerWebSite } from "./web/site.js";

export { CLIENT_TIMEOUTS, type AppOptions, type ClientTimeouts } from "./app-options.js";

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
  const server = createServer(config, options);
  // Every route under /api as it is registered: the API reference is made from it.
  const apiRoutes = collectApiRoutes(server);

  const data = await openData(server, config, options);
  const redis = config.redisUrl ? await connectRedis(server, config.redisUrl) : undefined;
  const clock = options.clock ?? systemClock;
  const s3 = s3StorageOf(server, config);
  const contentVersion = contentVersionOf(server, config, redis);
  const jobs: Jobs = {};
  const deps = buildDeps(server, config, options, { data, redis, s3, contentVersion, jobs });

  // A refusal stops start-up: close what is open (the database) so the caller can report and exit.
  const created = await ensureAdmin(deps, config.admin).catch(async (error: unknown) => {
    await server.close();
    throw error;
  });
  if (created) options.onAdminCreated?.(created);
  const views = await prepareViews(server, config, deps, options);
  runJobs(server, deps, options, jobs, views);

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
  await registerHttpBasics(server, config, { redis, clock, s3, shared });

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
  postRoutes(server, deps, {
    slotMs: timeouts.slotMs,
    answers: postAnswers(deps, contentVersion),
  });
  commentRoutes(server, deps);
  categoryRoutes(server, deps);
  pageRoutes(server, deps);
  seriesRoutes(server, deps);
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
  newsletterRoutes(server, deps);
  openApiRoutes(server, apiRoutes, config, siteSettings);

  return { server, deps, database: data.database, apiRoutes };
}
