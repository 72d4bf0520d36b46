import "./production.js";
import {
  sweepOrphanUploads,
  sweepUnusedBodyImages,
  UNUSED_BODY_IMAGE_MS,
} from "../core/media/sweep.js";
import { liftEndedSuspensions } from "../core/users/suspension-end.js";
import { StartupRefusal } from "../core/users/bootstrap-admin.js";
import type { AdminCredentials } from "../core/users/bootstrap-admin.js";
import { buildApp, type App } from "./app.js";
import { startBanner } from "./banner.js";
import { ConfigError, loadConfig } from "./config.js";
import { prettyLogStream } from "./pretty-log.js";

/** An upload younger than this may still be on its way to its row (here or on another instance). */
const UPLOAD_GRACE_MS = 10 * 60 * 1000;
const SWEEP_EVERY_MS = 30 * 60 * 1000;
/** How long requests in flight get to finish after SIGTERM before the process exits anyway. */
const SHUTDOWN_DEADLINE_MS = 10_000;

/**
 * Removes body images no post used within a day, and image files a crash left without their row;
 * never stops the server.
 */
async function sweepUploads({ server, deps }: App) {
  try {
    const unused = await sweepUnusedBodyImages(deps, {
      olderThan: new Date(Date.now() - UNUSED_BODY_IMAGE_MS),
    });
    if (unused > 0) server.log.info({ unused }, "removed body images no post uses");
  } catch (error) {
    server.log.warn({ err: error }, "could not sweep unused body images");
  }
  try {
    const removed = await sweepOrphanUploads(deps, {
      olderThan: new Date(Date.now() - UPLOAD_GRACE_MS),
    });
    if (removed > 0) server.log.info({ removed }, "removed image files that no row refers to");
  } catch (error) {
    server.log.warn({ err: error }, "could not sweep image files without rows");
  }
  try {
    // A member whose suspension has ended is restored at their next sign-in in any case; this
    // lets their scheduled posts go out without waiting for it.
    const lifted = await liftEndedSuspensions(deps);
    if (lifted > 0) server.log.info({ lifted }, "lifted suspensions that have ended");
  } catch (error) {
    server.log.warn({ err: error }, "could not lift ended suspensions");
  }
}

async function main() {
  const config = loadConfig();
  let admin: AdminCredentials | undefined;
  const app = await buildApp(config, {
    // In a terminal, one line a request for people; otherwise (a service, a pipe) pino's JSON.
    ...(process.stdout.isTTY ? { logStream: prettyLogStream(process.stdout) } : {}),
    onAdminCreated: (created) => {
      admin = created;
    },
  });
  const { server } = app;

  const shutdown = (signal: string) => {
    server.log.info({ signal }, "shutting down");
    // Stop accepting, let the requests in flight finish, close the database; within the deadline.
    setTimeout(() => {
      server.log.error("requests still in flight at the shutdown deadline; exiting anyway");
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS).unref();
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGTERM", () => {
    shutdown("SIGTERM");
  });
  process.once("SIGINT", () => {
    shutdown("SIGINT");
  });

  await server.listen({ port: config.port, host: config.host });
  // The generated admin password is printed once, on purpose, outside the logs: the only way into
  // a brand-new install.
  process.stdout.write(startBanner(config, { admin }));
  void sweepUploads(app);
  setInterval(() => void sweepUploads(app), SWEEP_EVERY_MS).unref();
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof StartupRefusal) {
    console.error(error.message);
  } else {
    console.error("Start-up failed:", error);
  }
  process.exit(1);
});
