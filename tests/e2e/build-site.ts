import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/**
 * Before any browser test: Debian's Chromium must be there (installed here when we may, so
 * `npm ci && npm test` is enough on a fresh machine), and the site is built as `npm start` serves it.
 */
export default function prepareBrowserTests() {
  if (!existsSync(CHROMIUM)) {
    const root = process.getuid?.() === 0;
    if (!root || process.env.CHROMIUM_PATH) {
      throw new Error(
        `No Chromium at ${CHROMIUM}: install Debian's chromium (apt-get install -y chromium) or set CHROMIUM_PATH`,
      );
    }
    execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit" });
    execFileSync("apt-get", ["install", "-y", "-qq", "chromium"], {
      stdio: "inherit",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
  }
  // As `npm start` builds it: vitest sets NODE_ENV=test, which would give a development bundle
  // (and leave it in build/ for a following `npm run bench -- --skip-build`).
  execFileSync("npx", ["react-router", "build"], {
    stdio: "inherit",
    env: { ...process.env, NODE_ENV: "production" },
  });
}
