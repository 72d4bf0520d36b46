/**
 * `npm run load`: a mixed read/write load (anonymous and signed-in pages, API reads, likes,
 * comments, post uploads and profile photos) against the production server for a few minutes. It
 * fails on any 5xx or network error, on an upload file left without its row, and when the server's
 * memory does not come back near its idle level once the load stops; it reports what was held.
 *
 *   npm run load -- --minutes 3 --workers 8
 *
 * tests/reliability/load.test.ts runs a short version of the same load in CI.
 */
import { execFileSync, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import sharp from "sharp";
import { createLocalStorage } from "../core/media/storage.js";
import { migrateToLatest, openDatabase } from "../db/connect.js";
import { DEMO_PASSWORD, seedDemo } from "./seed.js";
import { ROOT, startServer } from "./server.js";

/** Where memory must come back to once the load stops: within a quarter of idle, or 30 MB. */
export const settledTarget = (idleMb: number) => Math.max(idleMb * 1.25, idleMb + 30);

/** Resident memory of a process now, in MB, from /proc. */
export function residentMb(pid: number) {
  const status = readFileSync(`/proc/${String(pid)}/status`, "utf8");
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

interface Member {
  id: string;
  token: string;
}

interface OperationStats {
  count: number;
  statuses: Record<string, number>;
  latencies: number[];
}

export interface LoadReport {
  seconds: number;
  workers: number;
  requests: number;
  serverErrors: number;
  networkErrors: number;
  operations: Record<
    string,
    { count: number; statuses: Record<string, number>; p50: number; p99: number }
  >;
  /** Before any request, idle once every kind of request has run, at the peak, after the load. */
  memoryMb: {
    coldIdle: number;
    idle: number;
    peak: number;
    settled: number;
    settledAfterSeconds: number;
  };
  orphanUploads: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0
    ? 0
    : (sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0);

/** A small JPEG, different each time, so every upload is real decoding and encoding work. */
async function photo(seed: number) {
  return sharp({
    create: {
      width: 320 + (seed % 7) * 40,
      height: 240,
      channels: 3,
      background: { r: (seed * 37) % 256, g: (seed * 91) % 256, b: 160 },
    },
  })
    .jpeg()
    .toBuffer();
}

/**
 * Runs the mixed load against `base` for `seconds` with `workers` concurrent clients, sampling the
 * server's memory (process `pid`) every half second, then waits up to `settleSeconds` for it to come
 * back near its idle level.
 */
export async function runLoad(options: {
  base: string;
  pid: number;
  members: Member[];
  category: string;
  seconds: number;
  workers: number;
  settleSeconds: number;
}): Promise<LoadReport> {
  const { base, pid, members } = options;
  const coldIdle = residentMb(pid);
  let peak = coldIdle;
  const sampler = setInterval(() => {
    peak = Math.max(peak, residentMb(pid));
  }, 500);

  const stats = new Map<string, OperationStats>();
  let networkErrors = 0;
  const postIds: string[] = [];
  const ownPosts = new Map<string, string[]>();
  const ownComments = new Map<string, string[]>();

  async function call(name: string, url: string, init: RequestInit = {}) {
    const started = performance.now();
    let status = "network";
    let body: unknown;
    try {
      const response = await fetch(`${base}${url}`, { redirect: "manual", ...init });
      status = String(response.status);
      const type = response.headers.get("content-type") ?? "";
      body = type.includes("json") ? await response.json() : await response.arrayBuffer();
    } catch {
      networkErrors += 1;
    }
    const entry = stats.get(name) ?? { count: 0, statuses: {}, latencies: [] };
    entry.count += 1;
    entry.statuses[status] = (entry.statuses[status] ?? 0) + 1;
    entry.latencies.push(performance.now() - started);
    stats.set(name, entry);
    return { status, body };
  }

  const listed = await call("GET /api/posts", "/api/posts?pageNumber=1");
  for (const post of listed.body as { _id: string }[]) postIds.push(post._id);

  let uploads = 0;
  const pick = <T>(items: readonly T[]) => items[Math.floor(Math.random() * items.length)];
  const operations: [weight: number, run: (member: Member) => Promise<unknown>][] = [
    [10, () => call("GET / (anonymous)", "/")],
    [
      6,
      () =>
        call(
          "GET /posts?page=n (anonymous)",
          `/posts?page=${String(1 + Math.floor(Math.random() * 5))}`,
        ),
    ],
    [8, () => call("GET post page (anonymous)", `/posts/details/${pick(postIds) ?? ""}`)],
    [
      6,
      (member) =>
        call("GET post page (signed in)", `/posts/details/${pick(postIds) ?? ""}`, {
          headers: { cookie: `session=${member.token}` },
        }),
    ],
    [
      10,
      () =>
        call(
          "GET /api/posts",
          `/api/posts?pageNumber=${String(1 + Math.floor(Math.random() * 20))}`,
        ),
    ],
    [8, () => call("GET /api/posts/:id", `/api/posts/${pick(postIds) ?? ""}`)],
    [
      10,
      (member) =>
        call("PUT like", `/api/posts/like/${pick(postIds) ?? ""}`, {
          method: "PUT",
          headers: { authorization: `Bearer ${member.token}` },
        }),
    ],
    [
      10,
      async (member) => {
        const mine = ownComments.get(member.id) ?? [];
        if (mine.length > 3) {
          const id = mine.shift() ?? "";
          return call("DELETE comment", `/api/comments/${id}`, {
            method: "DELETE",
            headers: { authorization: `Bearer ${member.token}` },
          });
        }
        const made = await call("POST comment", "/api/comments", {
          method: "POST",
          headers: { authorization: `Bearer ${member.token}`, "content-type": "application/json" },
          body: JSON.stringify({ text: "A comment under load", postId: pick(postIds) }),
        });
        if (made.status === "201") mine.push((made.body as { _id: string })._id);
        ownComments.set(member.id, mine);
        return made;
      },
    ],
    [
      2,
      async (member) => {
        const mine = ownPosts.get(member.id) ?? [];
        if (mine.length > 1) {
          const id = mine.shift() ?? "";
          postIds.splice(postIds.indexOf(id), 1);
          return call("DELETE post", `/api/posts/${id}`, {
            method: "DELETE",
            headers: { authorization: `Bearer ${member.token}` },
          });
        }
        const form = new FormData();
        form.set("title", "A post written under load");
        form.set("category", options.category);
        form.set("description", "Written while the server was busy with everyone else.");
        uploads += 1;
        form.set("image", new Blob([await photo(uploads)], { type: "image/jpeg" }), "photo.jpg");
        const made = await call("POST post with image", "/api/posts", {
          method: "POST",
          headers: { authorization: `Bearer ${member.token}` },
          body: form,
        });
        if (made.status === "201") {
          const id = (made.body as { _id: string })._id;
          mine.push(id);
          postIds.push(id);
        }
        ownPosts.set(member.id, mine);
        return made;
      },
    ],
    [
      1,
      async (member) => {
        const form = new FormData();
        uploads += 1;
        form.set("image", new Blob([await photo(uploads)], { type: "image/jpeg" }), "me.jpg");
        return call("POST profile photo", "/api/users/profile/profile-photo", {
          method: "POST",
          headers: { authorization: `Bearer ${member.token}` },
          body: form,
        });
      },
    ],
  ];
  const totalWeight = operations.reduce((sum, [weight]) => sum + weight, 0);
  const choose = () => {
    let roll = Math.random() * totalWeight;
    const chosen = operations.find(([weight]) => (roll -= weight) < 0) ?? operations[0];
    if (!chosen) throw new Error("no operations");
    return chosen[1];
  };

  // Warm-up: every kind of request once, so the code they load (the image codec above all) is
  // part of the idle level the memory must come back to.
  const warmer = members[0];
  if (!warmer) throw new Error("no signed-in members for the load");
  for (const [, run] of operations) await run(warmer);
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const idle = residentMb(pid);

  const deadline = Date.now() + options.seconds * 1000;
  await Promise.all(
    Array.from({ length: options.workers }, async (_, worker) => {
      const member = members[worker % members.length] ?? members[0];
      if (!member) throw new Error("no signed-in members for the load");
      while (Date.now() < deadline) await choose()(member);
    }),
  );
  clearInterval(sampler);
  peak = Math.max(peak, residentMb(pid));

  // Idle again: the runtime gives memory back once it sees the load has stopped.
  const settleStarted = Date.now();
  const target = settledTarget(idle);
  let settled = residentMb(pid);
  while (settled > target && Date.now() - settleStarted < options.settleSeconds * 1000) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    // A trickle of reads, as a quiet site gets, lets the runtime notice it is idle.
    await call("GET /livez (settling)", "/livez");
    settled = residentMb(pid);
  }

  const operationsReport: LoadReport["operations"] = {};
  let requests = 0;
  let serverErrors = 0;
  for (const [name, entry] of stats) {
    const sorted = entry.latencies.sort((a, b) => a - b);
    operationsReport[name] = {
      count: entry.count,
      statuses: entry.statuses,
      p50: Math.round(percentile(sorted, 50)),
      p99: Math.round(percentile(sorted, 99)),
    };
    requests += entry.count;
    for (const [status, count] of Object.entries(entry.statuses)) {
      if (status.startsWith("5")) serverErrors += count;
    }
  }
  return {
    seconds: options.seconds,
    workers: options.workers,
    requests,
    serverErrors,
    networkErrors,
    operations: operationsReport,
    memoryMb: {
      coldIdle,
      idle,
      peak,
      settled,
      settledAfterSeconds: Math.round((Date.now() - settleStarted) / 1000),
    },
    // Counted by the caller, which knows where the files are.
    orphanUploads: 0,
  };
}

/** Signs in the first `count` demo members and returns their ids and tokens. */
export async function signInMembers(base: string, emails: string[]): Promise<Member[]> {
  return Promise.all(
    emails.map(async (email) => {
      const response = await fetch(`${base}/api/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email, password: DEMO_PASSWORD }),
      });
      if (!response.ok) throw new Error(`could not sign in ${email}: ${String(response.status)}`);
      const { _id, token } = (await response.json()) as { _id: string; token: string };
      return { id: _id, token };
    }),
  );
}

/** Seeds a fresh data directory (or the DATABASE_URL database) and returns what the load needs. */
export async function seedForLoad(dataDir: string, base: string, databaseUrl: string | undefined) {
  const database = openDatabase({ databaseUrl, dataDir });
  try {
    await migrateToLatest(database.db);
    await seedDemo(
      database.db,
      createLocalStorage(path.join(dataDir, "uploads"), `${base}/uploads`),
      {
        users: 20,
        categories: 5,
        posts: 200,
        likes: 1000,
        comments: 1000,
      },
    );
    const members = await database.db
      .selectFrom("users")
      .select("email")
      .where("is_admin", "=", 0)
      .limit(8)
      .execute();
    const category = await database.db
      .selectFrom("categories")
      .select("title")
      .executeTakeFirstOrThrow();
    return { emails: members.map((member) => member.email), category: category.title };
  } finally {
    await database.close();
  }
}

/** Image folders under uploads/images that no post or user refers to. */
export async function orphanUploads(dataDir: string, databaseUrl: string | undefined) {
  const imagesDir = path.join(dataDir, "uploads", "images");
  const folders = readdirSync(imagesDir);
  const database = openDatabase({ databaseUrl, dataDir });
  try {
    const keys = new Set([
      ...(await database.db.selectFrom("posts").select("image_key as key").execute()).map(
        (r) => r.key,
      ),
      ...(
        await database.db
          .selectFrom("users")
          .select("photo_key as key")
          .where("photo_key", "is not", null)
          .execute()
      ).map((r) => r.key ?? ""),
    ]);
    return folders.filter((folder) => !keys.has(`images/${folder}`)).length;
  } finally {
    await database.close();
  }
}

async function main() {
  const { values } = parseArgs({
    options: {
      minutes: { type: "string", default: "3" },
      workers: { type: "string", default: "8" },
      port: { type: "string", default: "3901" },
      "skip-build": { type: "boolean", default: false },
    },
  });
  const minutes = Number(values.minutes);
  const workers = Number(values.workers);
  if (!(minutes > 0) || !Number.isInteger(workers) || workers < 1) {
    throw new Error("--minutes must be above 0 and --workers a whole number from 1");
  }
  if (!values["skip-build"]) execFileSync("npm", ["run", "build"], { cwd: ROOT, stdio: "inherit" });
  const base = `http://127.0.0.1:${values.port}`;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "blog-load-"));
  const databaseUrl = process.env.DATABASE_URL;
  const { emails, category } = await seedForLoad(dataDir, base, databaseUrl);
  let child: ChildProcess | undefined;
  try {
    ({ child } = await startServer(base, {
      PATH: process.env.PATH ?? "",
      DATA_DIR: dataDir,
      PORT: values.port,
      HOST: "127.0.0.1",
      PUBLIC_URL: base,
      RATE_LIMITS: "off",
      NEW_ACCOUNT_LIMITS: "off",
      LOG_LEVEL: "warn",
      ADMIN_EMAIL: "load-admin@example.com",
      ADMIN_PASSWORD: "Load-Admin1!",
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    }));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const members = await signInMembers(base, emails);
    const report = await runLoad({
      base,
      pid: child.pid ?? 0,
      members,
      category,
      seconds: minutes * 60,
      workers,
      settleSeconds: 120,
    });
    report.orphanUploads = await orphanUploads(dataDir, databaseUrl);
    const out = path.join(ROOT, "bench", "results");
    mkdirSync(out, { recursive: true });
    writeFileSync(path.join(out, "load-latest.json"), JSON.stringify(report, null, 2));
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    const failures = [
      report.serverErrors > 0 && `${String(report.serverErrors)} answers were 5xx`,
      report.networkErrors > 0 && `${String(report.networkErrors)} requests failed on the network`,
      report.orphanUploads > 0 && `${String(report.orphanUploads)} upload folders have no row`,
      report.memoryMb.settled > settledTarget(report.memoryMb.idle) &&
        `memory stayed at ${String(report.memoryMb.settled)} MB (idle ${String(report.memoryMb.idle)} MB)`,
    ].filter(Boolean);
    if (failures.length > 0) {
      console.error(`Load run failed: ${failures.join("; ")}`);
      process.exitCode = 1;
    }
  } finally {
    child?.kill("SIGTERM");
    if (!databaseUrl) rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1] ?? ""}`) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
