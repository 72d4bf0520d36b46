/**
 * Brings content in (decision 019):
 *
 *   npm run import -- site.tar                                  a site archive, into an empty site
 *   npm run import -- --ghost export.json [--images DIR]        a Ghost JSON export, added
 *   npm run import -- --wordpress export.xml [--images DIR]     a WordPress WXR file, added
 *
 * Reads DATA_DIR, DATABASE_URL and the S3_* variables as the server does.
 */
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { importBlog, type BlogImportReport } from "../../core/porting/blog-import.js";
import { SourceRefused } from "../../core/porting/foreign.js";
import { readGhostExport } from "../../core/porting/ghost.js";
import { readWordpressExport } from "../../core/porting/wordpress.js";
import { terminalProgress } from "../../core/porting/progress.js";
import { ImportRefused, importSite } from "../../core/porting/site-import.js";
import { commandDeps, openSite, runCommand, siteLocation } from "./site.js";

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
    return { ...values, archive: positionals[0] };
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`${(error as Error).message}\n${USAGE}`);
  }
}

async function importCommand() {
  const options = readArguments();
  if (options.ghost || options.wordpress) {
    await importForeignBlog(options.ghost, options.wordpress, options.images);
    return;
  }
  if (!options.archive) throw new UsageError(USAGE);
  const archive = path.resolve(options.archive);
  const site = await openSite();
  try {
    const report = await importSite(site.database.db, site.files, archive, terminalProgress());
    process.stdout.write(
      [
        `Imported ${archive} into ${siteLocation(site.config)}:`,
        ...report.tables.map((table) => `  ${table.name}: ${String(table.rows)} rows`),
        `  image files: ${String(report.files)}`,
        "Everyone signs in again with their password (sessions and mailed links are not carried).",
      ].join("\n") + "\n",
    );
  } finally {
    await site.close();
  }
}

/** Reads and checks the whole export first; only then opens the site and writes. */
async function importForeignBlog(
  ghost: string | undefined,
  wordpress: string | undefined,
  images: string | undefined,
) {
  const file = path.resolve(ghost ?? wordpress ?? "");
  const text = await readFile(file, "utf8").catch((error: unknown) => {
    const code = (error as NodeJS.ErrnoException).code;
    throw new SourceRefused(
      code === "ENOENT"
        ? `There is no file ${file}.`
        : `${file} cannot be read (${code ?? "error"}).`,
    );
  });
  if (images) {
    const folder = await stat(images).catch(() => undefined);
    if (!folder?.isDirectory()) throw new SourceRefused(`--images: there is no folder ${images}.`);
  }
  const blog = ghost ? readGhostExport(text) : readWordpressExport(text);
  const site = await openSite();
  try {
    const report = await importBlog(commandDeps(site), blog, {
      imagesDir: images,
      progress: terminalProgress(),
      siteDefaults: site.config.site,
    });
    process.stdout.write(`${formatBlogReport(blog.source, file, report)}\n`);
  } finally {
    await site.close();
  }
}

function formatBlogReport(source: string, file: string, report: BlogImportReport) {
  const { imported } = report;
  const lines = [
    `Imported from ${source} (${file}):`,
    `  posts: ${String(imported.posts)}`,
    `  pages: ${String(imported.pages)}`,
    `  comments: ${String(imported.comments)}`,
    `  new accounts: ${String(imported.authors)} (they sign in after "Reset Password" on the login page)`,
    `  accounts that existed already: ${String(report.existingAuthors)}`,
    `  new categories: ${String(imported.categories)}`,
    `  images: ${String(imported.images)}`,
  ];
  const { navigation } = report;
  if (navigation)
    lines.push(
      navigation.saved
        ? `  navigation: ${source}'s, ${String(navigation.header)} header and ${String(navigation.footer)} footer link(s) (this site had none saved)`
        : `  navigation: not imported (${navigation.why})`,
    );
  if (report.skipped.length > 0) {
    lines.push(`Skipped ${String(report.skipped.length)}:`);
    for (const { item, reason } of report.skipped) lines.push(`  ${item}: ${reason}`);
  }
  if (report.drafts.length > 0) {
    lines.push(`Imported as drafts ${String(report.drafts.length)}:`);
    for (const { kind, ref, title, reason } of report.drafts)
      lines.push(`  ${kind} ${ref} "${title}": ${reason}`);
  }
  if (report.missingImages.length > 0) {
    lines.push(`Images not imported ${String(report.missingImages.length)}:`);
    for (const { kind, ref, url, reason } of report.missingImages)
      lines.push(`  ${url} (${kind} ${ref}): ${reason}`);
  }
  if (report.notes.length > 0) {
    lines.push("Changed to fit:");
    for (const note of report.notes) lines.push(`  ${note}`);
  }
  return lines.join("\n");
}

runCommand(
  importCommand,
  (error) =>
    error instanceof UsageError || error instanceof ImportRefused || error instanceof SourceRefused,
);
