import { execFileSync, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type DatabaseHandle } from "../../db/connect.js";
import { PASSWORD } from "../support/factories.js";
import { client, type Client } from "../support/http.js";
import { pngImage } from "../support/images.js";
import { mailedLink } from "../support/mail.js";
import { addCategory, addPost, type PostDetail } from "../support/post-fixtures.js";
import { startTestS3, type TestS3 } from "../support/s3.js";
import { startServerProcess } from "../support/server-process.js";
import { ADMIN_EMAIL, ADMIN_PASSWORD, freePort, freshPostgres } from "../support/test-server.js";

// DESIGN.md 8: two server processes on different ports share one PostgreSQL database, one Redis
// and one S3 bucket, and nothing else: each has its own DATA_DIR, page cache and memory. Whatever
// one does, the other sees. Runs where both services are given (CI's PostgreSQL pass sets both).
const databaseUrl = process.env.DATABASE_URL;
const redisUrl = process.env.REDIS_URL;
const ROOT = path.resolve(import.meta.dirname, "../..");

interface Instance {
  url: string;
  dataDir: string;
}

let s3: TestS3;
let database: Awaited<ReturnType<typeof freshPostgres>>;
let direct: DatabaseHandle;
let redis: Redis;
let a: Instance;
let b: Instance;
let apiA: Client;
let apiB: Client;
/** What beforeAll set up, undone in reverse order (also when it failed half-way). */
const cleanups: (() => Promise<unknown>)[] = [];
// This file's own Redis keys, so runs side by side (or a crashed earlier run) cannot mix.
const prefix = `test-${Math.random().toString(36).slice(2, 10)}:`;

let addressCounter = 0;
/** A client address of its own (the instances trust X-Forwarded-For, as behind a load balancer). */
const newAddress = () => {
  addressCounter += 1;
  return `203.0.113.${String(addressCounter)}`;
};

async function signIn(api: Client, email: string, password: string, address = newAddress()) {
  return api.post<{ token: string; _id: string; message?: string }>(
    "/api/auth/login",
    { email, password },
    { headers: { "x-forwarded-for": address } },
  );
}

/** Signs up through A, follows the mailed link on B (tokens are shared too), signs in on B. */
async function newMember() {
  const username = `m${Math.random().toString(36).slice(2, 9)}`;
  const email = `${username}@example.com`;
  const from = { headers: { "x-forwarded-for": newAddress() } };
  const signUp = await apiA.post(
    "/api/auth/register",
    { username, email, password: PASSWORD },
    from,
  );
  expect(signUp.status, signUp.text).toBe(201);
  const link = await mailedLink(a.dataDir, email, "verify");
  const verified = await apiB.get(link.pathname, from);
  expect(verified.status, verified.text).toBe(200);
  const login = await signIn(apiB, email, PASSWORD);
  expect(login.status, login.text).toBe(200);
  return { id: login.body._id, username, email, password: PASSWORD, token: login.body.token };
}

/** A server process of its own on a free port, with its own DATA_DIR. */
async function startInstance(env: Record<string, string>): Promise<Instance> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "blog-instance-"));
  cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
  const port = String(await freePort());
  const { child } = await startServerProcess({
    port,
    dataDir,
    databaseUrl: database.url,
    env: { ...env, LOG_LEVEL: "error" },
  });
  cleanups.push(() => stop(child));
  return { url: `http://127.0.0.1:${port}`, dataDir };
}

async function stop(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await gone;
}

describe.skipIf(!databaseUrl || !redisUrl)(
  "two server processes on PostgreSQL, Redis and S3",
  () => {
    beforeAll(async () => {
      // Pages are part of what is shared (cached renders); they need the site's build.
      if (!existsSync(path.join(ROOT, "build/server/index.js"))) {
        execFileSync("npx", ["react-router", "build"], { cwd: ROOT, stdio: "ignore" });
      }
      s3 = await startTestS3();
      cleanups.push(() => s3.close());
      database = await freshPostgres(databaseUrl ?? "");
      cleanups.push(() => database.drop());
      redis = new Redis(redisUrl ?? "");
      cleanups.push(async () => {
        const keys = await redis.keys(`${prefix}*`);
        if (keys.length > 0) await redis.del(...keys);
        await redis.quit();
      });
      const env = {
        ...s3.env,
        REDIS_URL: redisUrl ?? "",
        REDIS_PREFIX: prefix,
        RATE_LIMITS: "on",
        TRUST_PROXY: "1",
        ADMIN_EMAIL,
        ADMIN_PASSWORD,
      };
      // Started together, as a deployment starts them: migrations and the first admin must not race.
      [a, b] = await Promise.all([startInstance(env), startInstance(env)]);
      direct = openDatabase({ databaseUrl: database.url, dataDir: a.dataDir });
      cleanups.push(() => direct.close());
      apiA = client(a.url);
      apiB = client(b.url);
      const admin = await signIn(apiA, ADMIN_EMAIL, ADMIN_PASSWORD);
      expect(admin.status, admin.text).toBe(200);
      const owner = {
        id: admin.body._id,
        username: "admin",
        email: ADMIN_EMAIL,
        password: ADMIN_PASSWORD,
        token: admin.body.token,
      };
      await addCategory(apiA, owner, "Travel");
    }, 180_000);

    afterAll(async () => {
      for (const cleanup of cleanups.reverse()) await cleanup();
    });

    it("start together with one admin and one schema", async () => {
      const admins = await direct.db
        .selectFrom("users")
        .select("id")
        .where("is_admin", "=", 1)
        .execute();
      expect(admins).toHaveLength(1);
    });

    it("share posts: created through one, read, liked and deleted through the other", async () => {
      const author = await newMember();
      const reader = await newMember();
      const post = await addPost(apiA, author, { title: "From A", category: "Travel" });

      const read = await apiB.get<PostDetail>(`/api/posts/${post._id}`);
      expect(read.status).toBe(200);
      expect(read.body.title).toBe("From A");

      const like = await apiB.put(`/api/posts/like/${post._id}`, undefined, {
        token: reader.token,
      });
      expect(like.status).toBe(200);
      const seen = await apiA.get<PostDetail>(`/api/posts/${post._id}`);
      expect(seen.body.likes.map((user) => user._id)).toEqual([reader.id]);

      const deleted = await apiB.delete(`/api/posts/${post._id}`, { token: author.token });
      expect(deleted.status).toBe(200);
      expect((await apiA.get(`/api/posts/${post._id}`)).status).toBe(404);
      // Its image went with it, from the one bucket both use.
      const imagePath = new URL(post.image.url).pathname;
      expect((await fetch(`${a.url}${imagePath}`)).status).toBe(404);
      expect((await fetch(`${b.url}${imagePath}`)).status).toBe(404);
    });

    it("share sessions: signed in on one, working on both, and signed out of both at once", async () => {
      const member = await newMember();
      const post = await addPost(apiB, member, { category: "Travel" });
      for (const api of [apiA, apiB]) {
        const like = await api.put(`/api/posts/like/${post._id}`, undefined, {
          token: member.token,
        });
        expect(like.status).toBe(200);
      }
      const logout = await apiA.post("/api/auth/logout", undefined, { token: member.token });
      expect(logout.status).toBe(204);
      for (const api of [apiA, apiB]) {
        const refused = await api.put(`/api/posts/like/${post._id}`, undefined, {
          token: member.token,
        });
        expect(refused.status).toBe(401);
      }
    });

    it("share rate-limit counters: attempts split across both still trip the limit", async () => {
      // The per-address limit on sign-in (10 in 15 minutes), half the attempts on each instance.
      const address = newAddress();
      for (let i = 0; i < 10; i += 1) {
        const attempt = await signIn(
          i % 2 === 0 ? apiA : apiB,
          `nobody${String(i)}@example.com`,
          "Wrong-1!x",
          address,
        );
        expect(attempt.status, `attempt ${String(i + 1)}`).toBe(400);
      }
      for (const api of [apiA, apiB]) {
        const refused = await signIn(api, "someone@example.com", "Wrong-1!x", address);
        expect(refused.status).toBe(429);
        expect(refused.body.message).toMatch(/^Too many requests, please try again in/);
      }
      // Another address is not held back by it.
      expect((await signIn(apiA, "someone@example.com", "Wrong-1!x")).status).toBe(400);

      // The per-account limit (5 failures), from five addresses over both instances.
      const member = await newMember();
      for (let i = 0; i < 5; i += 1) {
        const attempt = await signIn(i % 2 === 0 ? apiB : apiA, member.email, "Wrong-1!x");
        expect(attempt.status).toBe(400);
      }
      for (const api of [apiA, apiB]) {
        const refused = await signIn(api, member.email, member.password);
        expect(refused.status).toBe(429);
        expect(refused.body.message).toMatch(
          /^Too many failed sign-in attempts for this account, please try again in \d+ minutes?$/,
        );
      }
    });

    it("share images: uploaded through one, served by both, from the bucket", async () => {
      const member = await newMember();
      const bytes = await pngImage(50, 40);
      const upload = await apiA.form<{ profilePhoto: { url: string } }>(
        "POST",
        "/api/users/profile/profile-photo",
        { file: { bytes, filename: "me.png" } },
        { token: member.token },
      );
      expect(upload.status, upload.text).toBe(200);
      const photoPath = new URL(upload.body.profilePhoto.url).pathname;
      const served = await Promise.all(
        [a, b].map(async (server) => {
          const response = await fetch(`${server.url}${photoPath}`);
          expect(response.status).toBe(200);
          expect(response.headers.get("content-type")).toBe("image/webp");
          return Buffer.from(await response.arrayBuffer());
        }),
      );
      expect(served[0]?.length).toBeGreaterThan(0);
      expect(served[0]?.equals(served[1] ?? Buffer.alloc(0))).toBe(true);
    });

    it("share cached pages: a write through one shows on the other's next answer", async () => {
      const author = await newMember();
      const home = async (server: Instance) => {
        const response = await fetch(`${server.url}/`);
        expect(response.status).toBe(200);
        return response.text();
      };
      // Both render and keep the home page (the second request of each is served from its cache).
      for (const server of [a, b]) {
        await home(server);
        await home(server);
      }
      const list = await apiA.get<{ title: string }[]>("/api/posts");
      expect(list.status).toBe(200);

      const post = await addPost(apiB, author, { title: "Fresh from B", category: "Travel" });
      expect(await home(a)).toContain("Fresh from B");
      const listed = await apiA.get<{ title: string }[]>("/api/posts");
      expect(listed.body.map((summary) => summary.title)).toContain("Fresh from B");

      // A comment through A is on B's anonymous post page at once.
      const page = async (server: Instance) =>
        (await fetch(`${server.url}/posts/details/${post._id}`)).text();
      expect(await page(b)).not.toContain("Seen everywhere");
      const comment = await apiA.post(
        "/api/comments",
        { text: "Seen everywhere", postId: post._id },
        { token: author.token },
      );
      expect(comment.status).toBe(201);
      expect(await page(b)).toContain("Seen everywhere");

      // And a deletion through A is gone from B's home page.
      expect((await apiA.delete(`/api/posts/${post._id}`, { token: author.token })).status).toBe(
        200,
      );
      expect(await home(b)).not.toContain("Fresh from B");
    });

    it("share site settings: saved through one, on the other's next page, feed and answer", async () => {
      const home = async (server: Instance) => (await fetch(`${server.url}/`)).text();
      // B renders and keeps its home page with the title it has now.
      await home(b);
      expect(await home(b)).not.toContain("Shared Title");
      const login = await signIn(apiA, ADMIN_EMAIL, ADMIN_PASSWORD);
      const saved = await apiA.put(
        "/api/admin/settings",
        {
          title: "Shared Title",
          welcome: "Saved on A.",
          contactPhone: "+1 555 0123",
          contactEmail: "shared@example.com",
        },
        { token: login.body.token },
      );
      expect(saved.status).toBe(200);
      expect(await home(b)).toContain("<title>Shared Title</title>");
      expect(await (await fetch(`${b.url}/rss.xml`)).text()).toContain(
        "<title>Shared Title</title>",
      );
      expect((await apiB.get<{ title: string }>("/api/settings")).body.title).toBe("Shared Title");
    });

    it("publish a scheduled post at its time, on both instances' lists and pages", async () => {
      const author = await newMember();
      const home = async (server: Instance) => (await fetch(`${server.url}/`)).text();
      const publishAt = new Date(Date.now() + 3000).toISOString();
      const titles = ["Timed one", "Timed two", "Timed three"];
      const scheduled: PostDetail[] = [];
      for (const title of titles) {
        scheduled.push(
          await addPost(apiA, author, {
            title,
            category: "Travel",
            status: "scheduled",
            publishAt,
          }),
        );
      }
      // Kept by both as they are now, without the posts.
      for (const server of [a, b]) expect(await home(server)).not.toContain("Timed one");
      const before = await apiB.get<PostDetail[]>("/api/posts?pageNumber=1");
      expect(before.body.map((summary) => summary.title)).not.toContain("Timed one");

      const deadline = Date.now() + 12_000;
      while (Date.now() < deadline && !(await home(b)).includes("Timed three")) {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(publishAt));
      for (const server of [a, b]) {
        const page = await home(server);
        for (const title of titles) expect(page).toContain(title);
      }
      const listed = await apiB.get<PostDetail[]>("/api/posts?pageNumber=1");
      expect(listed.body.map((summary) => summary.title)).toEqual(expect.arrayContaining(titles));
      const rows = await direct.db
        .selectFrom("posts")
        .select(["status", "published_at", "publish_at"])
        .where(
          "id",
          "in",
          scheduled.map((post) => post._id),
        )
        .execute();
      expect(rows).toEqual(
        titles.map(() => ({ status: "published", published_at: publishAt, publish_at: null })),
      );
    });
  },
);
