// @ts-check
// Plain JavaScript on purpose: it runs before anything is compiled (`npm start`, `npm run build`).
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";

/** Everything the build reads: a change to any of these makes the build stale. */
export const BUILD_INPUTS = [
  "app",
  "server",
  "core",
  "db",
  "contract",
  "lib",
  "native/search-rank.c",
  "native/release-memory.c",
  "public",
  "package.json",
  "package-lock.json",
  "tsconfig.json",
  "tsconfig.build.json",
  "vite.config.ts",
  "react-router.config.ts",
];

/** What `npm start` runs and serves; all must be there for a build to count as made. */
export const BUILD_OUTPUTS = [
  "build/server/index.js",
  "build/client/assets",
  "dist/server/main.js",
];

/** Written by a build that succeeded: the fingerprint of the inputs it was made from. */
export const STAMP_FILE = "dist/.build-stamp";

/** @param {string} dir @param {string} relative @param {string[]} into */
function listFiles(dir, relative, into) {
  for (const entry of readdirSync(path.join(dir, relative), { withFileTypes: true })) {
    const name = path.posix.join(relative, entry.name);
    if (entry.isDirectory()) listFiles(dir, name, into);
    else into.push(name);
  }
}

/**
 * A hash of every input file's path, size and modification time (and of the inputs that are
 * missing). Any edit, added or removed file, or checkout changes it; nothing is read but metadata.
 * @param {string} root
 * @returns {string}
 */
export function fingerprint(root) {
  const hash = createHash("sha256");
  for (const input of BUILD_INPUTS) {
    const full = path.join(root, input);
    if (!existsSync(full)) {
      hash.update(`missing ${input}\n`);
      continue;
    }
    /** @type {string[]} */
    const files = [];
    if (statSync(full).isDirectory()) listFiles(root, input, files);
    else files.push(input);
    for (const file of files.sort()) {
      const stat = statSync(path.join(root, file));
      hash.update(`${file} ${String(stat.size)} ${String(stat.mtimeMs)}\n`);
    }
  }
  return hash.digest("hex");
}

/**
 * Whether the build on disk was made from the sources as they are now. When in doubt (no stamp,
 * an output missing, unreadable files) it is not.
 * @param {string} root
 * @returns {{ fresh: true } | { fresh: false, reason: string }}
 */
export function buildFreshness(root) {
  const missing = BUILD_OUTPUTS.find((output) => !existsSync(path.join(root, output)));
  if (missing) return { fresh: false, reason: `no ${missing}` };
  let stamp;
  try {
    stamp = readFileSync(path.join(root, STAMP_FILE), "utf8").trim();
  } catch {
    return { fresh: false, reason: "no record of the last build" };
  }
  try {
    if (stamp !== fingerprint(root)) return { fresh: false, reason: "the sources changed since" };
  } catch (error) {
    return { fresh: false, reason: `could not read the sources (${String(error)})` };
  }
  return { fresh: true };
}

/** Forgets the last build (before a new one starts, so a failed build never counts as made). */
export function clearStamp(/** @type {string} */ root) {
  rmSync(path.join(root, STAMP_FILE), { force: true });
}

/** Records that the outputs were made from the inputs as they were when `print` was taken. */
export function writeStamp(/** @type {string} */ root, /** @type {string} */ print) {
  mkdirSync(path.dirname(path.join(root, STAMP_FILE)), { recursive: true });
  writeFileSync(path.join(root, STAMP_FILE), `${print}\n`);
}
