// @ts-check
// `npm run build`: the site (React Router) and the server (tsc), then a stamp of what it was made
// from. `--if-stale` (what `npm start` runs): nothing when that stamp matches the sources, and
// otherwise the same build with its output in build.log, shown only if it fails.
import { spawnSync } from "node:child_process";
import process from "node:process";
import { closeSync, openSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildFreshness, clearStamp, fingerprint, writeStamp } from "./build-freshness.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const ifStale = process.argv.includes("--if-stale");
const LOG_FILE = path.join(root, "build.log");

if (ifStale) {
  const state = buildFreshness(root);
  if (state.fresh) {
    process.stdout.write("The build is up to date; starting without building.\n");
    process.exit(0);
  }
  process.stdout.write(`Building the site and server (${state.reason}); output in build.log ...\n`);
}

// Taken before the build reads anything: an edit made while it runs leaves the stamp behind.
const print = fingerprint(root);
clearStamp(root);
const started = Date.now();
const log = ifStale ? openSync(LOG_FILE, "w") : undefined;
const stdio = log === undefined ? "inherit" : /** @type {const} */ (["ignore", log, log]);
const bin = (/** @type {string} */ name) => path.join(root, "node_modules", ".bin", name);
const steps = [
  [bin("react-router"), ["build"]],
  [bin("tsc"), ["-p", "tsconfig.build.json"]],
  // SQLite's search_rank, as npm's postinstall builds it (it never fails a build: without a
  // compiler, searches rank with bm25).
  [process.execPath, [path.join(root, "scripts", "build-native.js")]],
];
for (const [command, args] of /** @type {[string, string[]][]} */ (steps)) {
  // The site is built as it is served, whatever NODE_ENV the caller has (a test runner's `test`
  // would give React's development bundle).
  const result = spawnSync(command, args, {
    cwd: root,
    stdio,
    env: { ...process.env, NODE_ENV: "production" },
  });
  if (result.status !== 0) {
    if (log !== undefined) {
      closeSync(log);
      process.stderr.write(readFileSync(LOG_FILE, "utf8"));
    }
    process.stderr.write(`\nThe build failed (${path.basename(command)} ${args.join(" ")}).\n`);
    process.exit(result.status ?? 1);
  }
}
if (log !== undefined) closeSync(log);
writeStamp(root, print);
if (ifStale) process.stdout.write(`Built in ${((Date.now() - started) / 1000).toFixed(1)} s.\n`);
