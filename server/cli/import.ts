/**
 * Brings content in (decision 019):
 *
 *   npm run import -- site.tar                                  a site archive, into an empty site
 *   npm run import -- --ghost export.json [--images DIR]        a Ghost JSON export, added
 *   npm run import -- --wordpress export.xml [--images DIR]     a WordPress WXR file, added
 *
 * Reads DATA_DIR, DATABASE_URL and the S3_* variables as the server does.
 */
import path from "node:path";
import { parseArgs } from "node:util";
import { terminalProgress } from "../../core/porting/progress.js";
import { ImportRefused, importSite } from "../../core/porting/site-import.js";
import { openSite, runCommand, siteLocation } from "./site.js";

class UsageError extends Error {}

const USAGE = [
  "Usage:",
  "  npm run import -- site.tar",
  "  npm run import -- --ghost export.json [--images DIR]",
  "  npm run import -- --wordpress export.xml [--images DIR]",
].join("\n");

function readArguments() {
  try {
    const { values, positionals } = parseArgs({
      options: {
        ghost: { type: "string" },
        wordpress: { type: "string" },
        images: { type: "string" },
      },
      allowPositionals: true,
    });
    const sources = [values.ghost, values.wordpress, ...positionals].filter(Boolean);
    if (sources.length !== 1) throw new UsageError(USAGE);
    if (values.images && !values.ghost && !values.wordpress)
      throw new UsageError(`--images goes with --ghost or --wordpress.\n${USAGE}`);
    return values;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`${(error as Error).message}\n${USAGE}`);
  }
}

async function importCommand() {
  const values = readArguments();
  const archive = process.argv.slice(2).find((arg) => !arg.startsWith("--"));
  const site = await openSite();
  try {
    if (values.ghost || values.wordpress) {
      throw new UsageError("Not yet");
    }
    if (!archive) throw new UsageError(USAGE);
    const report = await importSite(
      site.database.db,
      site.files,
      path.resolve(archive),
      terminalProgress(),
    );
    process.stdout.write(
      [
        `Imported ${path.resolve(archive)} into ${siteLocation(site.config)}:`,
        ...report.tables.map((table) => `  ${table.name}: ${String(table.rows)} rows`),
        `  image files: ${String(report.files)}`,
        "Everyone signs in again with their password (sessions and mailed links are not carried).",
      ].join("\n") + "\n",
    );
  } finally {
    await site.close();
  }
}

runCommand(importCommand, (error) => error instanceof UsageError || error instanceof ImportRefused);
