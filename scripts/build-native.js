// @ts-check
// Builds SQLite's search_rank function (native/search-rank.c, decision 015) for this machine into
// native/build/, with the C compiler in $CC (a command, with arguments if it needs them) or `cc`.
// npm runs it after every install (postinstall), once the SQLite driver's headers are in
// node_modules, and `npm run build` runs it again. Without a compiler nothing fails: the server
// ranks searches with FTS5's bm25 instead, and says so when it starts.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const source = path.join(root, "native", "search-rank.c");
// The name db/search-rank.ts loads; SQLite finds the entry point from it (sqlite3_searchrank_init).
const output = path.join(root, "native", "build", "search-rank.so");

/** The folder of sqlite3.h and sqlite3ext.h that ships with the SQLite driver. */
function sqliteHeaders() {
  const require = createRequire(import.meta.url);
  for (const driver of ["better-sqlite3-v12", "better-sqlite3"]) {
    try {
      const folder = path.join(
        path.dirname(require.resolve(`${driver}/package.json`)),
        "deps",
        "sqlite3",
      );
      if (existsSync(path.join(folder, "sqlite3ext.h"))) return folder;
    } catch {
      // Not installed: the next driver.
    }
  }
  return undefined;
}

/** Why it was not built, or undefined when it was. */
function build() {
  if (process.platform === "win32") return "not built on Windows";
  const headers = sqliteHeaders();
  if (!headers) return "the SQLite driver's headers are not installed";
  const [compiler = "cc", ...compilerArgs] = (process.env.CC || "cc").trim().split(/\s+/);
  const linking =
    process.platform === "darwin"
      ? [
          "-bundle",
          "-undefined",
          "dynamic_lookup",
          "-arch",
          process.arch === "arm64" ? "arm64" : "x86_64",
        ]
      : ["-shared"];
  mkdirSync(path.dirname(output), { recursive: true });
  // Written beside it and then renamed, so a server starting meanwhile never loads half a file.
  const partial = `${output}.${String(process.pid)}.tmp`;
  const result = spawnSync(
    compiler,
    [...compilerArgs, "-O2", "-fPIC", "-Wall", ...linking, "-I", headers, "-o", partial, source],
    { stdio: ["ignore", "inherit", "inherit"] },
  );
  if (result.error || result.status !== 0) {
    // Nor an older build of another source: the server would say it ranks with this one.
    rmSync(partial, { force: true });
    rmSync(output, { force: true });
    return result.error
      ? `${compiler}: ${result.error.message}`
      : `${compiler} failed (exit ${String(result.status)})`;
  }
  renameSync(partial, output);
  return undefined;
}

let failed;
try {
  failed = build();
} catch (error) {
  failed = error instanceof Error ? error.message : String(error);
}
if (failed) {
  process.stderr.write(
    `native/search-rank.c was not built (${failed}): searches will rank with FTS5's slower bm25.\n`,
  );
} else {
  process.stdout.write(`Built ${path.relative(root, output)} (search ranking for SQLite).\n`);
}
