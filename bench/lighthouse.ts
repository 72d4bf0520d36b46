/**
 * `npm run bench:lighthouse`: Lighthouse 12 (its default mobile profile, simulated throttling) on
 * the home page and a post page of the production server with a small seeded dataset, in Debian's
 * Chromium. Writes bench/results/lighthouse-<time>.json and prints the scores.
 *
 *   npm run bench:lighthouse -- --skip-build
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { launch } from "chrome-launcher";
import lighthouse from "lighthouse";
import { createLocalStorage } from "../core/media/storage.js";
import { migrateToLatest, openDatabase } from "../db/connect.js";
import { seedDemo } from "./seed.js";
import { get, ROOT, startServer } from "./server.js";

const { values: options } = parseArgs({
  options: {
    port: { type: "string", default: "3910" },
    "skip-build": { type: "boolean", default: false },
  },
});
const base = `http://127.0.0.1:${options.port}`;
const CATEGORIES = ["performance", "accessibility", "best-practices", "seo"] as const;

async function main() {
  if (!options["skip-build"])
    execFileSync("npm", ["run", "build"], { cwd: ROOT, stdio: "inherit" });
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "blog-lighthouse-"));
  const database = openDatabase({ dataDir });
  await migrateToLatest(database.db);
  await seedDemo(
    database.db,
    createLocalStorage(path.join(dataDir, "uploads"), `${base}/uploads`),
    { users: 50, categories: 10, posts: 200, likes: 1000, comments: 1000 },
  );
  await database.close();

  const { child } = await startServer(base, {
    PATH: process.env.PATH ?? "",
    DATA_DIR: dataDir,
    PORT: options.port,
    HOST: "127.0.0.1",
    PUBLIC_URL: base,
    LOG_LEVEL: "warn",
    ADMIN_EMAIL: "lighthouse-admin@example.com",
    ADMIN_PASSWORD: "Lighthouse-Admin1!",
  });
  // A Chromium that fails to start must not leave the server running.
  const chrome = await launch({
    chromePath: process.env.CHROME_PATH ?? "/usr/bin/chromium",
    chromeFlags: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  }).catch((error: unknown) => {
    child.kill("SIGTERM");
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  });
  try {
    const posts = JSON.parse((await get(`${base}/api/posts?pageNumber=1`)).body) as {
      _id: string;
    }[];
    const pages = { home: "/", "post page": `/posts/details/${posts[0]?._id ?? ""}` };
    const scores: Record<string, Record<string, number>> = {};
    for (const [name, pathname] of Object.entries(pages)) {
      const result = await lighthouse(`${base}${pathname}`, {
        port: chrome.port,
        output: "json",
        logLevel: "error",
        onlyCategories: [...CATEGORIES],
      });
      if (!result) throw new Error(`Lighthouse gave no result for ${pathname}`);
      // A run that broke scores null, which would read as 0: say why instead.
      const { runtimeError } = result.lhr;
      if (runtimeError)
        throw new Error(`Lighthouse failed on ${pathname}: ${runtimeError.message}`);
      for (const audit of Object.values(result.lhr.audits)) {
        if (audit.errorMessage) {
          process.stdout.write(`  ${name}: ${audit.id} could not run: ${audit.errorMessage}\n`);
        }
      }
      const { categories } = result.lhr;
      scores[name] = Object.fromEntries(
        CATEGORIES.map((id) => [id, Math.round((categories[id]?.score ?? 0) * 100)]),
      );
      const failing = Object.values(result.lhr.audits).filter(
        (audit) =>
          audit.score !== null && audit.score < 0.9 && audit.scoreDisplayMode !== "informative",
      );
      if (process.env.LIGHTHOUSE_DEBUG) {
        // What the page did unthrottled: the simulation counts every task before the observed paint.
        process.stdout.write(
          `metrics: ${JSON.stringify(result.lhr.audits.metrics?.details ?? null).slice(0, 3000)}\n`,
        );
        process.stdout.write(
          `bootup-time: ${JSON.stringify(result.lhr.audits["bootup-time"]?.details ?? null).slice(0, 3000)}\n`,
        );
        for (const audit of failing) {
          process.stdout.write(
            `${audit.id}: ${JSON.stringify(audit.details ?? null).slice(0, 1500)}\n`,
          );
        }
      }
      for (const audit of failing) {
        process.stdout.write(
          `  ${name}: ${audit.id} (${String(audit.score)}) ${audit.displayValue ?? ""}\n`,
        );
      }
    }
    const out = path.join(ROOT, "bench", "results");
    mkdirSync(out, { recursive: true });
    const date = new Date().toISOString();
    writeFileSync(
      path.join(out, `lighthouse-${date.replace(/[:.]/g, "-")}.json`),
      JSON.stringify({ date, scores }, null, 2),
    );
    const lines = [
      "| page | performance | accessibility | best practices | SEO |",
      "|---|---|---|---|---|",
      ...Object.entries(scores).map(
        ([name, s]) =>
          `| ${name} | ${String(s.performance)} | ${String(s.accessibility)} | ${String(s["best-practices"])} | ${String(s.seo)} |`,
      ),
    ];
    process.stdout.write(`\nLighthouse 12, mobile, ${date}\n\n${lines.join("\n")}\n`);
  } finally {
    chrome.kill();
    child.kill("SIGTERM");
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
