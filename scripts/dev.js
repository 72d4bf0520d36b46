// @ts-check
// `npm run dev`: the host from the sources (tsx), restarted when server code changes, and the site
// rebuilt, then the host restarted, when app/ changes. Reload the browser to see the change.
import { spawn, spawnSync } from "node:child_process";
import { watch } from "node:fs";
import path from "node:path";
import process from "node:process";
import { clearTimeout, setTimeout } from "node:timers";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const bin = (/** @type {string} */ name) => path.join(root, "node_modules", ".bin", name);
const SERVER_DIRS = ["server", "core", "db", "contract", "lib"];
const SITE_DIRS = ["app", "public"];
const say = (/** @type {string} */ text) => process.stdout.write(`[dev] ${text}\n`);

/** Builds the site for the browser and the server; false (with the errors shown) if it failed. */
function buildSite() {
  const started = Date.now();
  const result = spawnSync(bin("react-router"), ["build"], {
    cwd: root,
    encoding: "utf8",
  });
  if (result.status !== 0) {
    process.stderr.write(`${result.stdout}${result.stderr}`);
    say("the site did not build; fix the error above and save again");
    return false;
  }
  say(`site built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return true;
}

/** @type {import("node:child_process").ChildProcess | undefined} */
let server;

function startServer() {
  server = spawn(process.execPath, ["--import", "tsx", "server/main.ts"], {
    cwd: root,
    stdio: "inherit",
    env: process.env,
  });
  const started = server;
  started.once("exit", () => {
    if (server === started) server = undefined;
  });
}

/** Stops the server (waiting for it) and starts it again. */
async function restartServer() {
  const running = server;
  if (running && running.exitCode === null && running.signalCode === null) {
    const exited = new Promise((resolve) => running.once("exit", resolve));
    running.kill("SIGTERM");
    await exited;
  }
  startServer();
}

/** @type {Set<"site" | "server">} */
const pending = new Set();
let timer = /** @type {NodeJS.Timeout | undefined} */ (undefined);
let busy = Promise.resolve();

/** Changes come in bursts (an editor's save, a checkout): act once they settle. */
function changed(/** @type {"site" | "server"} */ kind, /** @type {string} */ file) {
  pending.add(kind);
  clearTimeout(timer);
  timer = setTimeout(() => {
    const kinds = new Set(pending);
    pending.clear();
    busy = busy.then(async () => {
      say(`${file} changed: ${kinds.has("site") ? "rebuilding the site, then " : ""}restarting`);
      if (kinds.has("site") && !buildSite()) return;
      await restartServer();
    });
  }, 150);
}

for (const [dirs, kind] of /** @type {const} */ ([
  [SERVER_DIRS, "server"],
  [SITE_DIRS, "site"],
])) {
  for (const dir of dirs) {
    watch(path.join(root, dir), { recursive: true }, (_event, name) => {
      if (name && !name.includes("node_modules")) changed(kind, path.posix.join(dir, String(name)));
    });
  }
}

if (!buildSite()) say("starting the API anyway; the site will be served once it builds");
startServer();
say(`watching ${[...SITE_DIRS, ...SERVER_DIRS].join("/, ")}/`);

// Ctrl+C reaches the server too (one process group): give it a moment to stop by itself before
// asking again, which would cut its graceful shutdown short. SIGTERM (a supervisor) is passed on.
for (const signal of /** @type {const} */ (["SIGINT", "SIGTERM"])) {
  process.once(signal, () => {
    clearTimeout(timer);
    const running = server;
    if (!running) process.exit(0);
    running.once("exit", () => process.exit(0));
    if (signal === "SIGTERM") running.kill("SIGTERM");
    else setTimeout(() => running.kill("SIGTERM"), 1000);
  });
}
