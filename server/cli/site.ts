import path from "node:path";
import { uncountedAttempts } from "../../core/auth/login-attempts.js";
import type { CoreDeps } from "../../core/deps.js";
import { createS3Storage } from "../../core/media/s3-storage.js";
import { renderMarkdownBody } from "../../core/posts/body.js";
import { localSiteFiles, s3SiteFiles, type SiteFiles } from "../../core/porting/site-files.js";
import { systemClock } from "../../core/shared/clock.js";
import { migrateToLatest, openDatabase, type DatabaseHandle } from "../../db/connect.js";
import { ConfigError, loadConfig, type Config } from "../config.js";

/** The site the server would run with these variables: its database (migrated) and its images. */
export async function openSite(): Promise<{
  config: Config;
  database: DatabaseHandle;
  files: SiteFiles;
  close(): Promise<void>;
}> {
  const config = loadConfig();
  const database = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    await migrateToLatest(database.db);
  } catch (error) {
    await database.close();
    throw error;
  }
  const files = config.s3
    ? s3SiteFiles(
        createS3Storage({
          ...config.s3,
          publicBaseUrl: config.s3.publicUrl ?? `${config.publicUrl}/uploads`,
        }),
      )
    : localSiteFiles(path.join(config.dataDir, "uploads"), `${config.publicUrl}/uploads`);
  return {
    config,
    database,
    files,
    async close() {
      files.close();
      await database.close();
    },
  };
}

/** Where the site lives, for the report. */
export const siteLocation = (config: Config) =>
  `${config.databaseUrl ? "PostgreSQL" : path.join(config.dataDir, "blog.db")}, images in ${
    config.s3 ? `S3 bucket ${config.s3.bucket}` : path.join(config.dataDir, "uploads")
  }`;

/** Runs a command: its refusals and failures are one line on stderr and exit code 1. */
export function runCommand(main: () => Promise<void>, isRefusal: (error: unknown) => boolean) {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      const known = error instanceof ConfigError || isRefusal(error);
      process.stderr.write(`${known ? message : `Failed: ${message}`}\n`);
      process.exit(1);
    },
  );
}

/**
 * What the services need, for a command rather than a server: no mail is sent, no sign-in
 * counted, and no running server is told (it sees the new content at its next change or restart).
 */
export function commandDeps(site: Awaited<ReturnType<typeof openSite>>): CoreDeps {
  const { config } = site;
  return {
    db: site.database.db,
    storage: site.files.storage,
    clock: systemClock,
    // A command serves nobody meanwhile: its bodies render on its own thread, without a budget.
    renderMarkdown: (source, options) => Promise.resolve(renderMarkdownBody(source, options)),
    mailTemplates: () => import("../../core/newsletter/newsletter-mail.js"),
    loginAttempts: uncountedAttempts,
    contentChanged: () => Promise.resolve(),
    newAccountBrakes: false,
    mailer: { send: () => Promise.reject(new Error("a command sends no mail")) },
    log: {
      warn: (details, message) => {
        process.stderr.write(`${message} ${JSON.stringify(details)}\n`);
      },
    },
    site: {
      title: config.site.title,
      publicUrl: config.publicUrl,
      mailLinkUrl: config.mailLinkUrl,
      defaultAvatarUrl: `${config.publicUrl}/images/default-avatar.svg`,
    },
  };
}
