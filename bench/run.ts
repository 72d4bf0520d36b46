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
 *   npm run bench -- --only realistic   # the realistic mix, the like cycles and the mixed row (issue 48)
 *   npm run bench -- --only realistic --cpu-prof /tmp/prof   # and the server's CPU profiles
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { sql } from "kysely";
import { createLocalStorage } from "../core/media/storage.js";
import { migrateToLatest, openDatabase } from "../db/connect.js";
import { DEMO_PASSWORD, seedDemo, seedLongMarkdownPost } from "./seed.js";
import { get, ROOT, startFlags, startServer } from "./server.js";

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
    /**
     * `search`, `mixed`, `counting` or `realistic`: only those rows (and the ceiling they are
     * compared with). `realistic` is the realistic mix, the like cycles and the mixed row, the
     * worst case reported beside them.
     */
    only: { type: "string", default: "" },
    /**
     * Comments the mixed workload's post holds before it starts. Its every cycle comments there
     * too, so the post holds more the faster the server goes: at 0.10 of a 25,000/s ceiling,
     * about 2,000 over a run. This measures that post without first going that fast.
     */
    "busy-comments": { type: "string", default: "0" },
    /**
     * A directory to write the server's CPU profiles into (`--cpu-prof`), one per server started:
     * where the time of what the rows measure goes.
     */
    "cpu-prof": { type: "string", default: "" },
  },
});
if (!["", "search", "mixed", "counting", "realistic"].includes(options.only)) {
  throw new Error("--only takes: search, mixed, counting, realistic");
}
const onlySearch = options.only === "search";
const onlyMixed = options.only === "mixed";
const onlyCounting = options.only === "counting";
const onlyRealistic = options.only === "realistic";
/** The server's Node arguments: as `npm start` runs it, profiled when asked. */
const serverArgs = [
  ...startFlags(),
  ...(options["cpu-prof"]
    ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(options["cpu-prof"])}`]
    : []),
  path.join(ROOT, "dist/server/main.js"),
];
/** The workloads of the cached pass alone: no other pass has rows of them. */
const onlyWorkloads = onlyMixed || onlyRealistic;
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
/** The comments the like cycle's busy post holds (issue 48). */
const LIKE_CYCLE_COMMENTS = 2000;
/** The like cycles' rows, whose ratio to each other latest.md reports. */
const LIKE_CYCLE_QUIET = "like cycle, quiet post";
const LIKE_CYCLE_HEAVY = `like cycle, post with ${LIKE_CYCLE_COMMENTS.toLocaleString("en")} comments`;

/** A pass's rows, given the members' tokens (the first member's first) and the connections. */
type Targets = (tokens: string[], connections: number) => [string, Partial<autocannon.Options>][];

const port = num("port");
const base = `http://127.0.0.1:${String(port)}`;
const duration = num("duration");
const connectionCounts = options.connections.split(",").map(Number);
/** The like cycles are measured at one count: 10, or the smallest asked for without 10. */
const likeCycleConnections = connectionCounts.includes(10) ? 10 : Math.min(...connectionCounts);

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
/** What the mixed workloads comment, and how their comments are found again. */
const MIXED_COMMENT = "A benchmark comment";
/** What the comments a post holds before the server starts say (kept from pass to pass). */
const HELD_COMMENT = "A comment the post held before the run";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** mulberry32: a small seeded generator, so every pass of a row asks the same requests. */
function mulberry32(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Draws 0-based ranks out of `count` by a Zipf law: rank k (1-based) in proportion to 1 / k^s.
 * At s = 1.1 over 1,000 posts the most popular takes 18 % of the draws, the top 10 48 %, the top
 * 100 77 %: a few posts are read most, and a long tail now and then (what a cache must hold).
 */
function zipf(count: number, s: number, random: () => number) {
  const cumulative: number[] = [];
  let total = 0;
  for (let rank = 1; rank <= count; rank += 1) {
    total += rank ** -s;
    cumulative.push(total);
  }
  return () => {
    const roll = random() * total;
    let low = 0;
    let high = count - 1;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((cumulative[middle] ?? total) < roll) low = middle + 1;
      else high = middle;
    }
    return low;
  };
}

/** A page as a browser asks for it (its view counted), signed in when given a member's token. */
const pageRequest = (pathname: string, token?: string): autocannon.Request => ({
  method: "GET",
  path: pathname,
  headers: { ...READER, ...(token === undefined ? {} : { cookie: `session=${token}` }) },
});

/**
 * The realistic mix (issue 48): what its requests ask, in percent of them, given the post drawn
 * and a member's token. Readers mostly arrive at a post from a link, so most pages are post
 * pages; a few are the home page and the list's second page, which name no post. Signed-in pages
 * carry a member's session cookie, likes and comments a member's bearer token; the JSON reads are
 * anonymous, as the single JSON rows are.
 */
const REALISTIC_MIX: {
  percent: number;
  /** How latest.md names it. */
  what: string;
  ask: (post: string, token: string) => autocannon.Request;
}[] = [
  // 55 %: anonymous pages.
  { percent: 50, what: "post page", ask: (post) => pageRequest(`/posts/details/${post}`) },
  { percent: 3, what: "home", ask: () => pageRequest("/") },
  { percent: 2, what: "/posts?page=2", ask: () => pageRequest("/posts?page=2") },
  // 20 %: the same pages signed in (rendered for the member every time).
  {
    percent: 18,
    what: "post page signed in",
    ask: (post, token) => pageRequest(`/posts/details/${post}`, token),
  },
  { percent: 1, what: "home signed in", ask: (_, token) => pageRequest("/", token) },
  {
    percent: 1,
    what: "/posts?page=2 signed in",
    ask: (_, token) => pageRequest("/posts?page=2", token),
  },
  // 15 %: JSON reads.
  {
    percent: 12,
    what: "JSON /api/posts/{id}",
    ask: (post) => ({ method: "GET", path: `/api/posts/${post}` }),
  },
  {
    percent: 3,
    what: "JSON /api/posts?pageNumber=1",
    ask: () => ({ method: "GET", path: "/api/posts?pageNumber=1" }),
  },
  // 6 %: likes. A like toggles, so a member's second like of a post takes the first back.
  {
    percent: 6,
    what: "likes",
    ask: (post, token) => ({
      method: "PUT",
      path: `/api/posts/like/${post}`,
      headers: { authorization: `Bearer ${token}` },
    }),
  },
  // 4 %: comments, with the text forgetMixedComments() removes after each pass.
  {
    percent: 4,
    what: "comments",
    ask: (post, token) => ({
      method: "POST",
      path: "/api/comments",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ text: MIXED_COMMENT, postId: post }),
    }),
  },
];

/** The realistic mix's weights, as latest.md reports them. */
const REALISTIC_MIX_DESCRIPTION = REALISTIC_MIX.map(
  ({ percent, what }) => `${String(percent)} % ${what}`,
).join(", ");

/**
 * The realistic mix as one autocannon request that becomes a new one each time it is sent: the
 * kind drawn by REALISTIC_MIX's weights, the post by a Zipf law over `posts` (most popular
 * first), the member among `tokens`. Seeded, so each pass draws the same sequence.
 */
function realisticMix(posts: readonly string[], tokens: readonly string[]): autocannon.Request {
  const random = mulberry32(48);
  const rank = zipf(posts.length, 1.1, random);
  const totalPercent = REALISTIC_MIX.reduce((sum, kind) => sum + kind.percent, 0);
  return {
    setupRequest: (request) => {
      let roll = random() * totalPercent;
      const kind = REALISTIC_MIX.find((entry) => (roll -= entry.percent) < 0);
      if (!kind) throw new Error("the realistic mix's weights do not add up");
      const post = posts[rank()] ?? "";
      const token = tokens[Math.floor(random() * tokens.length)] ?? "";
      const asked = kind.ask(post, token);
      // New headers and body every time: autocannon passes in the entry's own headers object,
      // so changing it would carry a cookie or a content length over to the next request.
      return {
        ...request,
        ...asked,
        headers: { ...request.headers, ...asked.headers },
        body: asked.body ?? "",
      };
    },
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
  // The members the rows sign in as: the first one for the single signed-in rows, eight distinct
  // ones for the realistic mix (every seeded member has DEMO_PASSWORD).
  const members = await database.db
    .selectFrom("users")
    .select(["id", "email"])
    .where("is_admin", "=", 0)
    .limit(8)
    .execute();
  const member = members[0];
  if (!member) throw new Error("the seed made no members to sign in as");
  const newest = await database.db
    .selectFrom("posts")
    .select("id")
    .where("status", "=", "published")
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(4 + 1000)
    .execute();
  const newestId = (index: number) => newest[index]?.id ?? newest[0]?.id ?? "";
  // The post the rows measure, and the one the mixed workload likes and comments on: that one
  // gathers a few thousand comments over a run (and `GET /api/posts/:id` answers every comment),
  // so measuring it would measure how many comments the earlier rows left, not a post.
  const postId = newestId(0);
  const busyPostId = newestId(1);
  // The like cycles' posts: one holding LIKE_CYCLE_COMMENTS comments and a quiet one holding
  // none, both stripped of the few comments the seed gave them so they hold exactly that.
  const heavyPostId = newestId(2);
  const quietPostId = newestId(3);
  // The realistic mix's posts, most popular first: the newest 1,000 but the four above (its
  // comments and likes there would change what their rows measure) and the long Markdown post.
  const popularPostIds = newest
    .slice(4)
    .map((post) => post.id)
    .filter((id) => id !== longPostId);
  if (popularPostIds.length === 0) popularPostIds.push(postId);
  const realisticRow = `realistic mix (Zipf over ${String(popularPostIds.length)} posts: pages, signed-in pages, API reads, likes, comments)`;
  await database.db
    .deleteFrom("comments")
    .where("post_id", "in", [heavyPostId, quietPostId])
    .execute();
  /** Gives `post` `count` comments by the first member before the server starts. */
  const holdComments = async (post: string, count: number) => {
    const first = Date.now() - count * 1000;
    const values = Array.from({ length: count }, (_, index) => {
      const at = new Date(first + index * 1000).toISOString();
      return {
        id: crypto.randomUUID(),
        post_id: post,
        user_id: member.id,
        parent_id: null,
        text: HELD_COMMENT,
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
  };
  const busyComments = num("busy-comments");
  await holdComments(busyPostId, busyComments);
  await holdComments(heavyPostId, LIKE_CYCLE_COMMENTS);
  // What autovacuum does after a bulk insert (a PostgreSQL with it off, as here, never does): the
  // visibility map a deep page's index-only scan reads, and the planner's statistics.
  if (process.env.DATABASE_URL) await sql`VACUUM ANALYZE`.execute(database.db);
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

  /**
   * Measures `targetsOf` at each of `connections` against a server started with `extraEnv`; it is
   * given the members' tokens (the first member's first) and the connection count.
   */
  async function pass(extraEnv: Record<string, string>, connections: number[], targetsOf: Targets) {
    const { child, startMs } = await startServer(base, { ...env, ...extraEnv }, serverArgs);
    const pid = child.pid ?? 0;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    try {
      await sleep(1000);
      const idle = memoryOf(pid);
      const tokens: string[] = [];
      for (const { email } of members) {
        const login = await fetch(`${base}/api/auth/login`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ email, password: DEMO_PASSWORD }),
        });
        if (!login.ok) throw new Error(`${email} could not sign in: ${String(login.status)}`);
        tokens.push(((await login.json()) as { token: string }).token);
      }
      const results: Measured[] = [];
      for (const count of connections) {
        for (const [name, setup] of targetsOf(tokens, count)) {
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
   * Removes the comments the mixed workloads wrote (a few hundred a pass), on every post the
   * realistic mix drew as well as the mixed row's, so each run measures the same posts: left
   * there, every run's mixed row read more of them than the last (`GET /api/posts/:id` answers
   * every comment), and the median measured how many runs came before.
   */
  async function forgetMixedComments() {
    const written = openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir });
    try {
      await written.db.deleteFrom("comments").where("text", "=", MIXED_COMMENT).execute();
    } finally {
      await written.close();
    }
  }

  const cachedTargets: Targets = (tokens, connections) => {
    const token = tokens[0] ?? "";
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
    // A member likes a post (or takes the like back), then its page is read anonymously and by
    // the member: each like makes both pages again.
    const likeCycle = (post: string): Partial<autocannon.Options> => ({
      requests: [
        { method: "PUT", path: `/api/posts/like/${post}`, headers: auth },
        { method: "GET", path: `/posts/details/${post}`, headers: READER },
        { method: "GET", path: `/posts/details/${post}`, headers: { ...READER, ...signedIn } },
      ],
    });
    // A like moves its post on (the cached page and answers of it are made again), so each
    // cycle's pages are rendered afresh: what a like costs the post's readers, on a post with no
    // comments and on one whose page holds LIKE_CYCLE_COMMENTS of them. At one count only.
    const likeCycles: [string, Partial<autocannon.Options>][] =
      connections === likeCycleConnections
        ? [
            [LIKE_CYCLE_QUIET, likeCycle(quietPostId)],
            [LIKE_CYCLE_HEAVY, likeCycle(heavyPostId)],
          ]
        : [];
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
      [realisticRow, { requests: [realisticMix(popularPostIds, tokens)] }],
      ...likeCycles,
      [`JSON /api/posts (all ${String(sizes.posts)} posts, streamed)`, get("/api/posts")],
    ];
    return onlyMixed
      ? targets.filter(([name]) => name.startsWith("ceiling") || name.startsWith("mixed"))
      : onlyCounting
        ? targets.filter(([name]) => name.startsWith("ceiling") || COUNTED.includes(name))
        : onlyRealistic
          ? targets.filter(([name]) =>
              ["ceiling", "mixed", "realistic", "like cycle"].some((start) =>
                name.startsWith(start),
              ),
            )
          : targets;
  };
  // The cached pages again with VIEW_COUNTING=off, in the same run: what counting costs them.
  const notCountedTargets: Targets = (tokens, connections) =>
    cachedTargets(tokens, connections)
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
        onlySearch || onlyWorkloads
          ? undefined
          : await pass({ VIEW_COUNTING: "off" }, connectionCounts, notCountedTargets);
      const uncached =
        onlySearch || onlyWorkloads || onlyCounting
          ? undefined
          : await pass({ PAGE_CACHE: "off" }, [10], uncachedTargets);
      const kept =
        onlyWorkloads || onlyCounting ? undefined : await pass({}, [10], searchTargets(false));
      const fresh =
        onlyWorkloads || onlyCounting
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
    if (!onlySearch && !onlyWorkloads && !onlyCounting) {
      const { child } = await startServer(base, env, serverArgs);
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
  // What a like costs a post with many comments beside a quiet one: the heavy cycle's requests a
  // second and CPU a request over the quiet cycle's.
  const quietCycle = rows.find((r) => r.name === LIKE_CYCLE_QUIET);
  const heavyCycle = rows.find((r) => r.name === LIKE_CYCLE_HEAVY);
  const likeCycleRatio =
    quietCycle && heavyCycle
      ? {
          requestsPerSecond:
            Math.round(
              (heavyCycle.requestsPerSecond / Math.max(1, quietCycle.requestsPerSecond)) * 100,
            ) / 100,
          cpuMicrosPerRequest:
            Math.round(
              (heavyCycle.cpuMicrosPerRequest / Math.max(1, quietCycle.cpuMicrosPerRequest)) * 100,
            ) / 100,
        }
      : undefined;
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
    likeCycleRatio,
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
    ...(rows.some((r) => r.name === realisticRow)
      ? [
          `Realistic mix: each request draws a post by a Zipf law (s = 1.1, the newest first) over ${String(popularPostIds.length)} published posts and a member among ${String(members.length)}; ${REALISTIC_MIX_DESCRIPTION}. Its comments are removed after each pass.`,
          "",
        ]
      : []),
    ...(likeCycleRatio
      ? [
          `Like cycle (a like, then the post page anonymous and signed in): the post with ${LIKE_CYCLE_COMMENTS.toLocaleString("en")} comments answers ${String(likeCycleRatio.requestsPerSecond)} of the quiet post's requests a second, at ${String(likeCycleRatio.cpuMicrosPerRequest)} times its server CPU a request.`,
          "",
        ]
      : []),
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
