// @ts-check
// Builds the SQLite extensions in native/ for this machine into native/build/, with the C compiler
// in $CC (a command, with arguments if it needs them) or `cc`: search_rank (native/search-rank.c,
// decision 015) and release_free_memory (native/release-memory.c, decision 030). npm runs it after
// every install (postinstall), once the SQLite driver's headers are in node_modules, and
// `npm run build` runs it again. Without a compiler nothing fails: the server ranks searches with
// FTS5's bm25 instead and says so when it starts, and leaves freed memory to the allocator.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/**
 * Each extension: its source, what is missing without it, and what it is for. The output is
 * native/build/<name>.so, the name db/ loads; SQLite finds the entry point from it
 * (sqlite3_searchrank_init, sqlite3_releasememory_init).
 */
const extensions = [
  {
    name: "search-rank",
    without: "searches will rank with FTS5's slower bm25",
    builds: "search ranking for SQLite",
  },
  {
    name: "release-memory",
    without: "memory freed after a burst of reading stays with the allocator",
    builds: "giving freed memory back to the system",
  },
];

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

/** Why `name` was not built, or undefined when it was. */
function build(name) {
  const source = path.join(root, "native", `${name}.c`);
  const output = path.join(root, "native", "build", `${name}.so`);
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

for (const { name, without, builds } of extensions) {
  let failed;
  try {
    failed = build(name);
  } catch (error) {
    failed = error instanceof Error ? error.message : String(error);
  }
  if (failed) {
    process.stderr.write(`native/${name}.c was not built (${failed}): ${without}.\n`);
  } else {
    process.stdout.write(`Built native/build/${name}.so (${builds}).\n`);
  }
}
