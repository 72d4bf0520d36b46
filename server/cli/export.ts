/**
 * Writes the whole site (every row and every image) into one tar archive (decision 019):
 *
 *   npm run export -- --out site.tar
 *
 * Reads DATA_DIR, DATABASE_URL and the S3_* variables as the server does. The archive appears under
 * its name only once complete.
 */
import { createWriteStream } from "node:fs";
import { rename, rm } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { terminalProgress } from "../../core/porting/progress.js";
import { exportSite } from "../../core/porting/site-export.js";
import { SKIPPED_TABLES } from "../../core/porting/tables.js";
import { openSite, runCommand, siteLocation } from "./site.js";

class UsageError extends Error {}

async function exportCommand() {
  let out: string | undefined;
  try {
    out = parseArgs({ options: { out: { type: "string" } }, allowPositionals: false }).values.out;
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\nUsage: npm run export -- --out site.tar`);
  }
  if (!out) throw new UsageError("Usage: npm run export -- --out site.tar");
  const target = path.resolve(out);
  const partial = `${target}.partial`;
  const site = await openSite();
  try {
    const report = await exportSite(
      site.database.db,
      site.database.engine,
      site.files,
      createWriteStream(partial),
      terminalProgress(),
    );
    await rename(partial, target);
    const lines = [
      `Exported ${siteLocation(site.config)} to ${target}:`,
      ...report.tables.map((table) => `  ${table.name}: ${String(table.rows)} rows`),
      `  image files: ${String(report.files)} (${String(report.bytes)} bytes)`,
      `Left out: ${Object.entries(SKIPPED_TABLES)
        .filter(([name]) => !name.startsWith("kysely_"))
        .map(([name, why]) => `${name} (${why})`)
        .join("; ")}.`,
    ];
    if (report.missingFiles.length > 0) {
      lines.push(
        `Warning: ${String(report.missingFiles.length)} image file(s) the rows name are not in storage, so not in the archive: ${report.missingFiles.slice(0, 5).join(", ")}${report.missingFiles.length > 5 ? ", ..." : ""}`,
      );
    }
    process.stdout.write(`${lines.join("\n")}\n`);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  } finally {
    await site.close();
  }
}

runCommand(exportCommand, (error) => error instanceof UsageError);
