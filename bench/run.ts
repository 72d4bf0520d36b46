/**
 * `npm run bench`: builds the production server, fills a fresh DATA_DIR (or DATABASE_URL) with a
 * realistic dataset through the database layer, starts the server as `npm start` does, and measures
 * it with autocannon. Writes bench/results/<time>.json and bench/results/latest.md.
 *
 *   npm run bench -- --posts 2000 --duration 5 --connections 10
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { createLocalStorage } from "../core/media/storage.js";
import { migrateToLatest, openDatabase } from "../db/connect.js";
import { DEMO_PASSWORD, seedDemo } from "./seed.js";
import { get, ROOT, startServer } from "./server.js";

const { values: options } = parseArgs({
  options: {
    users: { type: "string", default: "1000" },
    categories: { type: "string", default: "10" },
    posts: { type: "string", default: "10000" },
    likes: { type: "string", default: "50000" },
    comments: { type: "string", default: "50000" },
    duration: { type: "string", default: "10" },
    connections: { type: "string", default: "10,50" },
    port: { type: "string", default: "3900" },
    "skip-build": { type: "boolean", default: false },
  },
});
const num = (name: keyof typeof options) => {
  const value = Number(options[name]);
  if (!Number.isInteger(value) || value < 0) throw new Error(`--${name} must be a whole number`);
  return value;
};

const port = num("port");
const base = `http://127.0.0.1:${String(port)}`;
const duration = num("duration");
const connectionCounts = options.connections.split(",").map(Number);

/** Resident and peak memory of a process, in MB, from /proc. */
function memoryOf(pid: number) {
  const status = readFileSync(`/proc/${String(pid)}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rssMb: Math.round(kb("VmRSS") / 1024), peakMb: Math.round(kb("VmHWM") / 1024) };
}

interface Measured {
  name: string;
  connections: number;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  /** The server's peak resident memory so far, read after this run (which run raised it). */
  peakMbAfter: number;
}

async function measure(
  pid: number,
  name: string,
  connections: number,
  setup: Partial<autocannon.Options>,
): Promise<Measured> {
  const run = (seconds: number) =>
    autocannon({
      url: base,
      connections,
      duration: seconds,
      ...setup,
      // Every client asks for compressed answers, as browsers and API clients do.
      requests: (setup.requests ?? []).map((request) => ({
        ...request,
        headers: { "accept-encoding": "br, gzip", ...request.headers },
      })),
    });
  await run(2); // warm-up
  const result = await run(duration);
  return {
    name,
    connections,
    requestsPerSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    peakMbAfter: memoryOf(pid).peakMb,
  };
}

/** Compressed bytes of a page's HTML, CSS and JS, and how many requests they take. */
async function pageWeight(pathname: string) {
  const accept = { "accept-encoding": "br, gzip" };
  const page = await get(`${base}${pathname}`, accept);
  const html = (await get(`${base}${pathname}`)).body;
  const assets = [
    ...html.matchAll(/<link[^>]+rel="(?:stylesheet|modulepreload)"[^>]+href="([^"]+)"/g),
    ...html.matchAll(/<script[^>]+src="([^"]+)"/g),
    ...html.matchAll(/import\("([^"]+\.js)"\)/g),
  ].map((m) => m[1] ?? "");
  const unique = [...new Set(assets.filter((a) => a.startsWith("/")))];
  let bytes = page.bytes;
  for (const asset of unique) bytes += (await get(`${base}${asset}`, accept)).bytes;
  return {
    page: pathname,
    kb: Math.round(bytes / 102.4) / 10,
    requests: 1 + unique.length,
    encoding: page.headers["content-encoding"] ?? "none",
  };
}

async function main() {
  if (!options["skip-build"])
    execFileSync("npm", ["run", "build"], { cwd: ROOT, stdio: "inherit" });

  const dataDir = mkdtempSync(path.join(os.tmpdir(), "blog-bench-"));
  const sizes = {
    users: num("users"),
    categories: num("categories"),
    posts: num("posts"),
    likes: num("likes"),
    comments: num("comments"),
  };
  const database = openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir });
  await migrateToLatest(database.db);
  const seedStarted = performance.now();
  await seedDemo(
    database.db,
    createLocalStorage(path.join(dataDir, "uploads"), `${base}/uploads`),
    sizes,
  );
  const seedMs = Math.round(performance.now() - seedStarted);
  const member = await database.db
    .selectFrom("users")
    .select("email")
    .where("is_admin", "=", 0)
    .executeTakeFirstOrThrow();
  await database.close();

  const env = {
    PATH: process.env.PATH ?? "",
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: "127.0.0.1",
    PUBLIC_URL: base,
    RATE_LIMITS: "off",
    LOG_LEVEL: "warn",
    ADMIN_EMAIL: "bench-admin@example.com",
    ADMIN_PASSWORD: "Bench-Admin1!",
    ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
  };
  const { child, startMs } = await startServer(base, env);
  const pid = child.pid ?? 0;
  try {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const idle = memoryOf(pid);

    const posts = JSON.parse((await get(`${base}/api/posts?pageNumber=1`)).body) as {
      _id: string;
    }[];
    const postId = posts[0]?._id ?? "";
    const login = await fetch(`${base}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: member.email, password: DEMO_PASSWORD }),
    });
    const { token } = (await login.json()) as { token: string };
    const auth = { authorization: `Bearer ${token}` };
    const authJson = { ...auth, "content-type": "application/json" };
    // The web site's session cookie carries the same token; a signed-in page is rendered every time.
    const signedIn = { cookie: `session=${token}` };
    // Page 1000 of the default 10,000 posts; the last page of a smaller set.
    const deepPage = Math.min(1000, Math.max(1, Math.ceil(sizes.posts / 6)));

    const targets: [string, Partial<autocannon.Options>][] = [
      ["ceiling GET /livez", { requests: [{ method: "GET", path: "/livez" }] }],
      ["HTML /", { requests: [{ method: "GET", path: "/" }] }],
      ["HTML /posts?page=2", { requests: [{ method: "GET", path: "/posts?page=2" }] }],
      [
        "HTML /posts/details/{id}",
        { requests: [{ method: "GET", path: `/posts/details/${postId}` }] },
      ],
      [
        "HTML / signed in (rendered each time)",
        { requests: [{ method: "GET", path: "/", headers: signedIn }] },
      ],
      [
        "HTML /posts/details/{id} signed in (rendered each time)",
        { requests: [{ method: "GET", path: `/posts/details/${postId}`, headers: signedIn }] },
      ],
      [
        "JSON /api/posts?pageNumber=1",
        { requests: [{ method: "GET", path: "/api/posts?pageNumber=1" }] },
      ],
      [
        `JSON /api/posts?pageNumber=${String(deepPage)}`,
        { requests: [{ method: "GET", path: `/api/posts?pageNumber=${String(deepPage)}` }] },
      ],
      ["JSON /api/posts/{id}", { requests: [{ method: "GET", path: `/api/posts/${postId}` }] }],
      [
        "mixed (anonymous pages; signed-in reads, likes, comments)",
        {
          requests: [
            { method: "GET", path: "/" },
            { method: "GET", path: `/posts/details/${postId}` },
            { method: "GET", path: "/api/posts?pageNumber=1", headers: auth },
            { method: "GET", path: `/api/posts/${postId}`, headers: auth },
            { method: "PUT", path: `/api/posts/like/${postId}`, headers: auth },
            { method: "GET", path: "/api/posts?pageNumber=2", headers: auth },
            {
              method: "POST",
              path: "/api/comments",
              headers: authJson,
              body: JSON.stringify({ text: "A benchmark comment", postId }),
            },
          ],
        },
      ],
    ];
    const results: Measured[] = [];
    for (const connections of connectionCounts) {
      for (const [name, setup] of targets) {
        const measured = await measure(pid, name, connections, setup);
        results.push(measured);
        process.stdout.write(
          `${name} @${String(connections)}: ${String(measured.requestsPerSecond)} req/s, p99 ${String(measured.p99)} ms, peak ${String(measured.peakMbAfter)} MB\n`,
        );
      }
    }
    const peak = memoryOf(pid);
    const weights = [await pageWeight("/"), await pageWeight(`/posts/details/${postId}`)];

    const ceilingOf = (connections: number) =>
      results.find((r) => r.connections === connections && r.name.startsWith("ceiling"))
        ?.requestsPerSecond ?? 1;
    const report = {
      date: new Date().toISOString(),
      machine: {
        cpus: os.cpus().length,
        node: process.version,
        database: process.env.DATABASE_URL ? "postgres" : "sqlite",
      },
      sizes,
      seedMs,
      startToFirstAnswerMs: startMs,
      memory: { idleMb: idle.rssMb, peakMb: peak.peakMb },
      results: results.map((r) => ({
        ...r,
        ratioToCeiling: Math.round((r.requestsPerSecond / ceilingOf(r.connections)) * 100) / 100,
      })),
      pageWeight: weights,
    };
    const out = path.join(ROOT, "bench", "results");
    mkdirSync(out, { recursive: true });
    writeFileSync(
      path.join(out, `${report.date.replace(/[:.]/g, "-")}.json`),
      JSON.stringify(report, null, 2),
    );
    const lines = [
      `# Benchmark, ${report.date}`,
      "",
      `${String(report.machine.cpus)} cores, Node ${report.machine.node}, ${report.machine.database}; ${String(sizes.posts)} posts, ${String(sizes.users)} users, ${String(sizes.likes)} likes, ${String(sizes.comments)} comments (seeded in ${String(seedMs)} ms).`,
      "",
      "| route | connections | req/s | p50 ms | p99 ms | errors | non-2xx | ratio to ceiling | peak MB so far |",
      "|---|---|---|---|---|---|---|---|---|",
      ...report.results.map(
        (r) =>
          `| ${r.name} | ${String(r.connections)} | ${String(r.requestsPerSecond)} | ${String(r.p50)} | ${String(r.p99)} | ${String(r.errors)} | ${String(r.non2xx)} | ${String(r.ratioToCeiling)} | ${String(r.peakMbAfter)} |`,
      ),
      "",
      `Start to first answer: ${String(startMs)} ms. Memory: ${String(idle.rssMb)} MB idle, ${String(peak.peakMb)} MB peak.`,
      "",
      "| page | compressed HTML + CSS + JS | requests | HTML encoding |",
      "|---|---|---|---|",
      ...weights.map(
        (w) =>
          `| ${w.page.startsWith("/posts") ? "post page" : "home"} | ${String(w.kb)} KB | ${String(w.requests)} | ${w.encoding} |`,
      ),
      "",
    ];
    writeFileSync(path.join(out, "latest.md"), lines.join("\n"));
    process.stdout.write(`\n${lines.join("\n")}\n`);
  } finally {
    child.kill("SIGTERM");
    if (!process.env.DATABASE_URL) rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
