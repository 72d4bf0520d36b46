/**
 * `npm run bench`: builds the production server, fills a fresh DATA_DIR (or DATABASE_URL) with a
 * realistic dataset through the database layer, starts the server as `npm start` does, and measures
 * it with autocannon. Writes bench/results/<time>.json and bench/results/latest.md.
 *
 *   npm run bench -- --posts 2000 --duration 5 --connections 10
 *   npm run bench -- --only search --posts 100000   # the search rows alone, at 100,000 posts
 *   npm run bench -- --only mixed   # the mixed workload alone (and the ceiling)
 *   npm run bench -- --only mixed --busy-comments 2000   # its post holding 2,000 comments first
 *   npm run bench -- --only counting   # cached pages with view counting on and off (decision 026)
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { createLocalStorage } from "../core/media/storage.js";
import { migrateToLatest, openDatabase } from "../db/connect.js";
import { DEMO_PASSWORD, seedDemo, seedLongMarkdownPost } from "./seed.js";
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
    runs: { type: "string", default: "1" },
    "skip-build": { type: "boolean", default: false },
    /** `search`, `mixed` or `counting`: only those rows (and the ceiling they are compared with). */
    only: { type: "string", default: "" },
    /**
     * Comments the mixed workload's post holds before it starts. Its every cycle comments there
     * too, so the post holds more the faster the server goes: at 0.10 of a 25,000/s ceiling,
     * about 2,000 over a run. This measures that post without first going that fast.
     */
    "busy-comments": { type: "string", default: "0" },
  },
});
if (!["", "search", "mixed", "counting"].includes(options.only)) {
  throw new Error("--only takes: search, mixed, counting");
}
const onlySearch = options.only === "search";
const onlyMixed = options.only === "mixed";
const onlyCounting = options.only === "counting";
const num = (name: keyof typeof options) => {
  const value = Number(options[name]);
  if (!Number.isInteger(value) || value < 0) throw new Error(`--${name} must be a whole number`);
  return value;
};

/** A desktop browser's user agent: what a reader's view is counted by (decision 026). */
const READER = {
  "user-agent":
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
};
/** The cached pages measured with view counting off too, and how those rows are named. */
const COUNTED = ["HTML /", "HTML /posts/details/{id}", "HTML /posts/details/{id} signed in"];
const NOT_COUNTED = "(view counting off)";

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

/** Clock ticks a second, the unit of /proc/<pid>/stat's CPU times. */
const TICKS_PER_SECOND = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }));

/**
 * CPU time the process has used so far, every thread of it (the read worker, the collector's
 * helpers), in µs: user and system, fields 14 and 15 of /proc/<pid>/stat.
 */
function cpuMicrosOf(pid: number) {
  const stat = readFileSync(`/proc/${String(pid)}/stat`, "utf8");
  // The command name (field 2) is in brackets and may hold spaces: count from after it.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1_000_000) / TICKS_PER_SECOND;
}

interface Measured {
  name: string;
  connections: number;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  /**
   * The server's CPU time per answer over the measured seconds, all its threads: steadier than
   * requests a second on a shared machine, since it does not count the time it waited for a core.
   */
  cpuMicrosPerRequest: number;
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
  const cpuBefore = cpuMicrosOf(pid);
  const result = await run(duration);
  const cpuMicros = cpuMicrosOf(pid) - cpuBefore;
  return {
    name,
    connections,
    requestsPerSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpuMicrosPerRequest: Math.round(cpuMicros / Math.max(1, result.requests.total)),
    // autocannon counts a timeout among the errors too.
    errors: result.errors,
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

/** The server's own measurements of one run: start-up, memory, and every route's figures. */
interface Run {
  startMs: number;
  idleMb: number;
  peakMb: number;
  /** Resident memory 10 s after the cached pass, once the load has stopped. */
  settledMb: number;
  results: Measured[];
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : Math.round(((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2);
};
const spread = (values: number[]) =>
  values.length > 1 ? ` (${String(Math.min(...values))}-${String(Math.max(...values))})` : "";
/** What the mixed workload comments, and how its comments are found again. */
const MIXED_COMMENT = "A benchmark comment";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
  const runs = Math.max(1, num("runs"));
  const database = openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir });
  await migrateToLatest(database.db);
  const existing = await database.db
    .selectFrom("users")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .executeTakeFirstOrThrow();
  if (Number(existing.n) > 0) {
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
    throw new Error(
      "DATABASE_URL names a database that already has users: give the bench an empty one",
    );
  }
  const seedStarted = performance.now();
  const storage = createLocalStorage(path.join(dataDir, "uploads"), `${base}/uploads`);
  await seedDemo(database.db, storage, sizes);
  // A 20,000-character Markdown body (headings, tables, task lists, highlighted code): what the
  // longest post costs a page, rendered when it was written and read back as stored HTML.
  const longPostId = await seedLongMarkdownPost(database.db, storage);
  const seedMs = Math.round(performance.now() - seedStarted);
  const member = await database.db
    .selectFrom("users")
    .select("email")
    .where("is_admin", "=", 0)
    .executeTakeFirstOrThrow();
  const [newest, next] = await database.db
    .selectFrom("posts")
    .select("id")
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(2)
    .execute();
  // The post the rows measure, and the one the mixed workload likes and comments on: that one
  // gathers a few thousand comments over a run (and `GET /api/posts/:id` answers every comment),
  // so measuring it would measure how many comments the earlier rows left, not a post.
  const postId = newest?.id ?? "";
  const busyPostId = next?.id ?? postId;
  const busyComments = num("busy-comments");
  if (busyComments > 0) {
    const commenter = await database.db
      .selectFrom("users")
      .select("id")
      .where("email", "=", member.email)
      .executeTakeFirstOrThrow();
    const first = Date.now() - busyComments * 1000;
    const values = Array.from({ length: busyComments }, (_, index) => {
      const at = new Date(first + index * 1000).toISOString();
      return {
        id: crypto.randomUUID(),
        post_id: busyPostId,
        user_id: commenter.id,
        parent_id: null,
        text: "A comment the post held before the run",
        created_at: at,
        updated_at: at,
      };
    });
    for (let start = 0; start < values.length; start += 500) {
      await database.db
        .insertInto("comments")
        .values(values.slice(start, start + 500))
        .execute();
    }
  }
  await database.close();

  const env = {
    PATH: process.env.PATH ?? "",
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: "127.0.0.1",
    PUBLIC_URL: base,
    RATE_LIMITS: "off",
    NEW_ACCOUNT_LIMITS: "off",
    LOG_LEVEL: "warn",
    ADMIN_EMAIL: "bench-admin@example.com",
    ADMIN_PASSWORD: "Bench-Admin1!",
    ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
    // The content version, rate limits and login attempts shared through Redis, as several
    // instances run (decision 007).
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
  };
  // Page 1000 of the default 10,000 posts; the last page of a smaller set.
  const deepPage = Math.min(1000, Math.max(1, Math.ceil(sizes.posts / 6)));

  /** Measures `targets` at each of `connections` against a server started with `extraEnv`. */
  async function pass(
    extraEnv: Record<string, string>,
    connections: number[],
    targetsOf: (token: string) => [string, Partial<autocannon.Options>][],
  ) {
    const { child, startMs } = await startServer(base, { ...env, ...extraEnv });
    const pid = child.pid ?? 0;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    try {
      await sleep(1000);
      const idle = memoryOf(pid);
      const login = await fetch(`${base}/api/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: member.email, password: DEMO_PASSWORD }),
      });
      const { token } = (await login.json()) as { token: string };
      const results: Measured[] = [];
      for (const count of connections) {
        for (const [name, setup] of targetsOf(token)) {
          const measured = await measure(pid, name, count, setup);
          results.push(measured);
          process.stdout.write(
            `${name} @${String(count)}: ${String(measured.requestsPerSecond)} req/s, p99 ${String(measured.p99)} ms, ${String(measured.cpuMicrosPerRequest)} µs CPU a request, peak ${String(measured.peakMbAfter)} MB\n`,
          );
        }
      }
      await sleep(10_000);
      // Resident memory now, and its high-water mark over the whole pass.
      const after = memoryOf(pid);
      return { startMs, idle, after, results };
    } finally {
      child.kill("SIGTERM");
      await exited;
      await forgetMixedComments();
    }
  }

  /**
   * Removes the comments the mixed workload wrote (a few hundred a pass), so each run measures the
   * same post: left there, every run's mixed row read more of them than the last (`GET
   * /api/posts/:id` answers every comment), and the median measured how many runs came before.
   */
  async function forgetMixedComments() {
    const written = openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir });
    try {
      await written.db
        .deleteFrom("comments")
        .where("post_id", "=", busyPostId)
        .where("text", "=", MIXED_COMMENT)
        .execute();
    } finally {
      await written.close();
    }
  }

  const cachedTargets = (token: string): [string, Partial<autocannon.Options>][] => {
    const auth = { authorization: `Bearer ${token}` };
    const authJson = { ...auth, "content-type": "application/json" };
    // The web site's session cookie carries the same token; a signed-in page is rendered every time.
    const signedIn = { cookie: `session=${token}` };
    const get = (pathname: string, headers?: Record<string, string>) => ({
      requests: [{ method: "GET" as const, path: pathname, ...(headers ? { headers } : {}) }],
    });
    // Pages are asked for as a browser asks: a post page's view is counted (decision 026).
    const page = (pathname: string, headers?: Record<string, string>) =>
      get(pathname, { ...READER, ...headers });
    const targets: [string, Partial<autocannon.Options>][] = [
      ["ceiling GET /livez", get("/livez")],
      ["HTML /", page("/")],
      ["HTML /posts?page=2", page("/posts?page=2")],
      ["HTML /posts/details/{id}", page(`/posts/details/${postId}`)],
      ["HTML / signed in", page("/", signedIn)],
      ["HTML /posts/details/{id} signed in", page(`/posts/details/${postId}`, signedIn)],
      [
        "HTML /posts/details/{long Markdown} signed in",
        page(`/posts/details/${longPostId}`, signedIn),
      ],
      ["JSON /api/posts?pageNumber=1", get("/api/posts?pageNumber=1")],
      [
        `JSON /api/posts?pageNumber=${String(deepPage)}`,
        get(`/api/posts?pageNumber=${String(deepPage)}`),
      ],
      ["JSON /api/posts/{id}", get(`/api/posts/${postId}`)],
      [
        "mixed (anonymous and signed-in pages, API reads, likes, comments)",
        {
          requests: [
            { method: "GET", path: "/", headers: READER },
            { method: "GET", path: `/posts/details/${busyPostId}`, headers: READER },
            { method: "GET", path: "/", headers: { ...READER, ...signedIn } },
            {
              method: "GET",
              path: `/posts/details/${busyPostId}`,
              headers: { ...READER, ...signedIn },
            },
            { method: "GET", path: "/api/posts?pageNumber=1", headers: auth },
            { method: "GET", path: `/api/posts/${busyPostId}`, headers: auth },
            { method: "PUT", path: `/api/posts/like/${busyPostId}`, headers: auth },
            { method: "GET", path: "/api/posts?pageNumber=2", headers: auth },
            {
              method: "POST",
              path: "/api/comments",
              headers: authJson,
              body: JSON.stringify({ text: MIXED_COMMENT, postId: busyPostId }),
            },
          ],
        },
      ],
      [`JSON /api/posts (all ${String(sizes.posts)} posts, streamed)`, get("/api/posts")],
    ];
    return onlyMixed
      ? targets.filter(([name]) => name.startsWith("ceiling") || name.startsWith("mixed"))
      : onlyCounting
        ? targets.filter(([name]) => name.startsWith("ceiling") || COUNTED.includes(name))
        : targets;
  };
  // The cached pages again with VIEW_COUNTING=off, in the same run: what counting costs them.
  const notCountedTargets = (token: string): [string, Partial<autocannon.Options>][] =>
    cachedTargets(token)
      .filter(([name]) => COUNTED.includes(name))
      .map(([name, setup]) => [`${name} ${NOT_COUNTED}`, setup]);
  // With PAGE_CACHE=off every request reads the database and renders: what a page really costs.
  const uncachedTargets = (): [string, Partial<autocannon.Options>][] =>
    [
      "/",
      "/posts?page=2",
      `/posts/details/${postId}`,
      `/posts/details/${longPostId}`,
      "/api/posts?pageNumber=1",
      `/api/posts?pageNumber=${String(deepPage)}`,
      `/api/posts/${postId}`,
    ].map((pathname) => [
      `${pathname.startsWith("/api") ? "JSON" : "HTML"} ${pathname.replace(postId, "{id}").replace(longPostId, "{long Markdown}")} uncached`,
      { requests: [{ method: "GET", path: pathname }] },
    ]);

  // Searches as readers type them (the seed writes from a vocabulary of ~55 words, so a single
  // word of it is in most posts: the "common word" rows are the worst case, not the usual one).
  // A search's answer is kept until content changes, like the lists (decision 015): the first
  // pass measures searches asked again (popular searches, suggestions), the second, with
  // PAGE_CACHE=off, a search run afresh for every request.
  const searchTargets = (fresh: boolean) => (): [string, Partial<autocannon.Options>][] =>
    [
      ...(onlySearch && !fresh ? [["ceiling GET /livez", "/livez"]] : []),
      ["JSON search: an author's name", "/api/search?q=grace"],
      ["JSON search: a category", "/api/search?q=photography"],
      ["JSON search: a phrase", "/api/search?q=%22quiet%20river%22"],
      ["JSON search: a word, another left out", "/api/search?q=lesson%20-winter"],
      ["JSON search: a prefix as typed", "/api/search?q=neighb"],
      ["JSON search: a common word, page 3", "/api/search?q=coffee&pageNumber=3"],
      ["JSON search: three common words", "/api/search?q=garden%20river%20winter"],
      ["HTML /search?q=a phrase", "/search?q=%22quiet%20river%22"],
    ].map(([name = "", address = ""]) => [
      name.startsWith("ceiling") ? name : `${name}${fresh ? " (searched each time)" : " (kept)"}`,
      { requests: [{ method: "GET", path: address }] },
    ]);

  const done: Run[] = [];
  let weights: Awaited<ReturnType<typeof pageWeight>>[] = [];
  try {
    for (let run = 1; run <= runs; run += 1) {
      process.stdout.write(`\n== run ${String(run)} of ${String(runs)}\n`);
      const cached = onlySearch ? undefined : await pass({}, connectionCounts, cachedTargets);
      const notCounted =
        onlySearch || onlyMixed
          ? undefined
          : await pass({ VIEW_COUNTING: "off" }, connectionCounts, notCountedTargets);
      const uncached =
        onlySearch || onlyMixed || onlyCounting
          ? undefined
          : await pass({ PAGE_CACHE: "off" }, [10], uncachedTargets);
      const kept =
        onlyMixed || onlyCounting ? undefined : await pass({}, [10], searchTargets(false));
      const fresh =
        onlyMixed || onlyCounting
          ? undefined
          : await pass({ PAGE_CACHE: "off" }, [10], searchTargets(true));
      const first = cached ?? kept;
      if (!first) throw new Error("a run measured nothing");
      done.push({
        startMs: first.startMs,
        idleMb: first.idle.rssMb,
        peakMb: first.after.peakMb,
        settledMb: first.after.rssMb,
        results: [
          ...(cached?.results ?? []),
          ...(notCounted?.results ?? []),
          ...(uncached?.results ?? []),
          ...(kept?.results ?? []),
          ...(fresh?.results ?? []),
        ],
      });
    }
    if (!onlySearch && !onlyMixed && !onlyCounting) {
      const { child } = await startServer(base, env);
      const exited = new Promise((resolve) => child.once("exit", resolve));
      try {
        weights = [await pageWeight("/"), await pageWeight(`/posts/details/${postId}`)];
      } finally {
        child.kill("SIGTERM");
        await exited;
      }
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }

  // Each route's median over the runs; the ratio is to the same run's ceiling at the same count.
  const rows = (done[0]?.results ?? []).map((first, index) => {
    const all = done.map((run) => run.results[index] ?? first);
    const ratios = done.map((run) => {
      const row = run.results[index] ?? first;
      const ceiling = run.results.find(
        (r) => r.connections === Math.max(row.connections, 10) && r.name.startsWith("ceiling"),
      );
      return row.requestsPerSecond / (ceiling?.requestsPerSecond ?? 1);
    });
    return {
      name: first.name,
      connections: first.connections,
      requestsPerSecond: median(all.map((r) => r.requestsPerSecond)),
      requestsPerSecondRange: spread(all.map((r) => r.requestsPerSecond)),
      p50: median(all.map((r) => r.p50)),
      p99: median(all.map((r) => r.p99)),
      cpuMicrosPerRequest: median(all.map((r) => r.cpuMicrosPerRequest)),
      errors: Math.max(...all.map((r) => r.errors)),
      non2xx: Math.max(...all.map((r) => r.non2xx)),
      ratioToCeiling: Math.round(median(ratios.map((r) => r * 1000)) / 10) / 100,
      peakMbAfter: median(all.map((r) => r.peakMbAfter)),
    };
  });
  const summary = (pick: (run: Run) => number) => ({
    median: median(done.map(pick)),
    runs: done.map(pick),
  });
  const report = {
    date: new Date().toISOString(),
    machine: {
      cpus: os.cpus().length,
      node: process.version,
      database: process.env.DATABASE_URL ? "postgres" : "sqlite",
      redis: process.env.REDIS_URL ? "redis" : "none",
    },
    sizes,
    seedMs,
    runs,
    durationSeconds: duration,
    startToFirstAnswerMs: summary((run) => run.startMs),
    memory: {
      idleMb: summary((run) => run.idleMb),
      peakMb: summary((run) => run.peakMb),
      settledMb: summary((run) => run.settledMb),
    },
    results: rows,
    pageWeight: weights,
    eachRun: done,
  };
  const out = path.join(ROOT, "bench", "results");
  mkdirSync(out, { recursive: true });
  writeFileSync(
    path.join(out, `${report.date.replace(/[:.]/g, "-")}.json`),
    JSON.stringify(report, null, 2),
  );
  const figure = (s: { median: number; runs: number[] }) => `${String(s.median)}${spread(s.runs)}`;
  const lines = [
    `# Benchmark, ${report.date}`,
    "",
    `${String(report.machine.cpus)} cores, Node ${report.machine.node}, ${report.machine.database}${report.machine.redis === "redis" ? " with Redis" : ""}; ${String(sizes.posts)} posts, ${String(sizes.users)} users, ${String(sizes.likes)} likes, ${String(sizes.comments)} comments (seeded in ${String(seedMs)} ms)${busyComments > 0 ? `; the mixed workload's post held ${String(busyComments)} comments before it began` : ""}. ${runs > 1 ? `Medians of ${String(runs)} runs (range in brackets)` : "One run"} of ${String(duration)} s per row after a 2 s warm-up. Uncached rows: the server started with PAGE_CACHE=off; rows ${NOT_COUNTED}: with VIEW_COUNTING=off, right after the same rows with it on.`,
    "",
    "| route | connections | req/s | p50 ms | p99 ms | server CPU µs/req | errors | non-2xx | ratio to ceiling | peak MB so far |",
    "|---|---|---|---|---|---|---|---|---|---|",
    ...rows.map(
      (r) =>
        `| ${r.name} | ${String(r.connections)} | ${String(r.requestsPerSecond)}${r.requestsPerSecondRange} | ${String(r.p50)} | ${String(r.p99)} | ${String(r.cpuMicrosPerRequest)} | ${String(r.errors)} | ${String(r.non2xx)} | ${String(r.ratioToCeiling)} | ${String(r.peakMbAfter)} |`,
    ),
    "",
    `Start to first answer: ${figure(report.startToFirstAnswerMs)} ms. Memory: ${figure(report.memory.idleMb)} MB idle, ${figure(report.memory.peakMb)} MB peak, ${figure(report.memory.settledMb)} MB 10 s after the load.`,
    "",
    "| page | compressed HTML + CSS + JS | requests (HTML, CSS, JS) | HTML encoding |",
    "|---|---|---|---|",
    ...weights.map(
      (w) =>
        `| ${w.page.startsWith("/posts") ? "post page" : "home"} | ${String(w.kb)} KB | ${String(w.requests)} | ${w.encoding} |`,
    ),
    "",
  ];
  writeFileSync(path.join(out, "latest.md"), lines.join("\n"));
  process.stdout.write(`\n${lines.join("\n")}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
