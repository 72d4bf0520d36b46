import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { orphanUploads, seedForLoad, signInMembers } from "../../bench/load.js";
import { openDatabase } from "../../db/connect.js";
import { SQLite } from "../../db/sqlite-driver.js";
import { client } from "../support/http.js";
import { pngImage } from "../support/images.js";
import { startServerProcess } from "../support/server-process.js";
import { freePort, freshPostgres } from "../support/test-server.js";

// The server as a process of its own (from the sources, with `npm start`'s flags), killed and
// stopped for real: SIGKILL in the middle of a burst of writes, then SIGTERM with a request in
// flight.

const databaseUrl = process.env.DATABASE_URL;
let dataDir: string;
let database: Awaited<ReturnType<typeof freshPostgres>> | undefined;
let seeded: Awaited<ReturnType<typeof seedForLoad>>;
let port: string;
let base: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), "blog-crash-"));
  database = databaseUrl ? await freshPostgres(databaseUrl) : undefined;
  port = String(await freePort());
  base = `http://127.0.0.1:${port}`;
  seeded = await seedForLoad(dataDir, base, database?.url);
}, 120_000);

afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  await database?.drop();
  await rm(dataDir, { recursive: true, force: true });
});

async function start() {
  // A server a failed test left running would answer in place of the new one: stop it first.
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      const gone = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGKILL");
      await gone;
    }
  }
  const { child } = await startServerProcess({ port, dataDir, databaseUrl: database?.url });
  children.push(child);
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  return { child, exited };
}

/** Every file under uploads/images, relative to it. */
async function imageFiles() {
  const root = path.join(dataDir, "uploads", "images");
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)));
}

/** Makes every stored file and folder look `minutes` old, as if the restart came that much later. */
async function age(minutes: number) {
  const then = new Date(Date.now() - minutes * 60_000);
  const root = path.join(dataDir, "uploads", "images");
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    await utimes(path.join(entry.parentPath, entry.name), then, then);
  }
}

async function waitFor(check: () => Promise<boolean>, what: string, ms = 15_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("SIGKILL during a burst of writes", () => {
  it("restarts on a sound database with every acknowledged write, and no file without its row", async () => {
    const server = await start();
    const api = client(base);
    const members = await signInMembers(base, seeded.emails.slice(0, 6));
    const posts = await api.get<{ _id: string }[]>("/api/posts?pageNumber=1");
    const targets = posts.body.map((post) => post._id);
    const image = await pngImage(200, 150);

    const acknowledged = {
      posts: [] as string[],
      comments: [] as { postId: string; id: string }[],
      likes: [] as { postId: string; userId: string }[],
      photos: new Set<string>(),
    };
    let killed = false;
    // Each member writes without pause: posts with images, comments, likes, profile photos.
    const workers = members.map(async (member, index) => {
      for (let round = 0; !killed; round += 1) {
        const postId = targets[(index + round) % targets.length] ?? "";
        const step = round % 4;
        try {
          if (step === 0) {
            const created = await api.form<{ _id: string }>(
              "POST",
              "/api/posts",
              {
                fields: {
                  title: `Burst ${String(index)}-${String(round)}`,
                  category: seeded.category,
                  description: "Written in a burst.",
                },
                file: { bytes: image, filename: "burst.png" },
              },
              { token: member.token },
            );
            if (created.status === 201) acknowledged.posts.push(created.body._id);
          } else if (step === 1) {
            const comment = await api.post<{ _id: string }>(
              "/api/comments",
              { text: `Burst comment ${String(round)}`, postId },
              { token: member.token },
            );
            if (comment.status === 201)
              acknowledged.comments.push({ postId, id: comment.body._id });
          } else if (step === 2) {
            const like = await api.put<{ likes: { _id: string }[] }>(
              `/api/posts/like/${postId}`,
              undefined,
              { token: member.token },
            );
            // A toggle: acknowledged as liked only when the answer says so.
            if (like.status === 200) {
              const liked = like.body.likes.some((user) => user._id === member.id);
              acknowledged.likes = acknowledged.likes.filter(
                (l) => !(l.postId === postId && l.userId === member.id),
              );
              if (liked) acknowledged.likes.push({ postId, userId: member.id });
            }
          } else {
            const photo = await api.form(
              "POST",
              "/api/users/profile/profile-photo",
              { file: { bytes: image, filename: "me.png" } },
              { token: member.token },
            );
            if (photo.status === 200) acknowledged.photos.add(member.id);
          }
        } catch {
          // The connection died with the server: not acknowledged, so nothing is owed.
        }
      }
    });
    // Let the burst run until every kind of write has been acknowledged at least once (on a
    // loaded machine the first posts can come back before any comment), then pull the plug
    // mid-write.
    await waitFor(
      () =>
        Promise.resolve(
          acknowledged.posts.length >= 4 &&
            acknowledged.comments.length >= 2 &&
            acknowledged.photos.size >= 1,
        ),
      "acknowledged posts, comments and photos",
      60_000,
    );
    server.child.kill("SIGKILL");
    killed = true;
    await server.exited;
    await Promise.all(workers);
    expect(acknowledged.comments.length).toBeGreaterThan(1);

    if (!database) {
      // The file opens (replaying its write-ahead log) and passes SQLite's own check.
      const sqlite = new SQLite(path.join(dataDir, "blog.db"));
      expect(sqlite.pragma("integrity_check")).toEqual([{ integrity_check: "ok" }]);
      expect(sqlite.pragma("foreign_key_check")).toEqual([]);
      sqlite.close();
    }

    // What a crash between storing an upload and writing its row leaves, planted for certain:
    // a finished image and a half-written file, and a folder made just before the crash. One
    // more, written just now, is left alone: it could be an upload on its way.
    const leftover = path.join(dataDir, "uploads", "images", randomUUID());
    await mkdir(leftover, { recursive: true });
    await writeFile(path.join(leftover, "lg.webp"), image);
    await writeFile(path.join(leftover, "sm.webp.tmp"), image.subarray(0, 10));
    const emptyLeftover = path.join(dataDir, "uploads", "images", randomUUID());
    await mkdir(emptyLeftover);
    await age(60);
    const young = path.join(dataDir, "uploads", "images", randomUUID());
    await mkdir(young, { recursive: true });
    await writeFile(path.join(young, "lg.webp"), image);

    const restarted = await start();
    // The sweep runs beside the first requests: done once only the young folder is left.
    await waitFor(
      async () => (await orphanUploads(dataDir, database?.url)) === 1,
      "the start-up sweep",
    );
    expect(existsSync(leftover)).toBe(false);
    expect(existsSync(emptyLeftover)).toBe(false);
    expect(existsSync(path.join(young, "lg.webp"))).toBe(true);
    await rm(young, { recursive: true });
    expect(await orphanUploads(dataDir, database?.url)).toBe(0);

    for (const postId of acknowledged.posts) {
      const post = await api.get<{ image: { url: string } }>(`/api/posts/${postId}`);
      expect(post.status, postId).toBe(200);
      const served = await fetch(`${base}${new URL(post.body.image.url).pathname}`);
      expect(served.status).toBe(200);
    }
    for (const { postId, id } of acknowledged.comments) {
      const post = await api.get<{ comments: { _id: string }[] }>(`/api/posts/${postId}`);
      expect(post.body.comments.map((comment) => comment._id)).toContain(id);
    }
    for (const { postId, userId } of acknowledged.likes) {
      const post = await api.get<{ likes: { _id: string }[] }>(`/api/posts/${postId}`);
      expect(post.body.likes.map((user) => user._id)).toContain(userId);
    }
    // Every row's image is whole: each post and photo has all its files.
    const rows = openDatabase({ databaseUrl: database?.url, dataDir });
    try {
      const keys = [
        ...(await rows.db.selectFrom("posts").select("image_key as key").execute()),
        ...(await rows.db
          .selectFrom("users")
          .select("photo_key as key")
          .where("photo_key", "is not", null)
          .execute()),
      ].map((row) => row.key ?? "");
      for (const id of acknowledged.photos) {
        const user = await rows.db
          .selectFrom("users")
          .select("photo_key")
          .where("id", "=", id)
          .executeTakeFirstOrThrow();
        expect(user.photo_key, id).not.toBeNull();
      }
      const files = new Set(await imageFiles());
      for (const key of keys) {
        const folder = key.replace(/^images\//, "");
        expect([...files].filter((file) => file.startsWith(`${folder}/`)).length, key).toBe(3);
      }
    } finally {
      await rows.close();
    }

    restarted.child.kill("SIGTERM");
    expect(await restarted.exited).toBe(0);
  }, 120_000);
});

describe("SIGTERM with a request in flight", () => {
  it("finishes the request, refuses new connections, and exits 0", async () => {
    const server = await start();
    const [member] = await signInMembers(base, seeded.emails.slice(0, 1));
    if (!member) throw new Error("no member");
    const image = await pngImage(120, 90);
    const boundary = `----crash${randomUUID()}`;
    const body = Buffer.concat([
      Buffer.from(
        [
          `--${boundary}`,
          'Content-Disposition: form-data; name="title"',
          "",
          "Sent while stopping",
          `--${boundary}`,
          'Content-Disposition: form-data; name="category"',
          "",
          seeded.category,
          `--${boundary}`,
          'Content-Disposition: form-data; name="description"',
          "",
          "The server was asked to stop half-way through this upload.",
          `--${boundary}`,
          'Content-Disposition: form-data; name="image"; filename="slow.png"',
          "Content-Type: image/png",
          "",
          "",
        ].join("\r\n"),
      ),
      image,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);

    // An upload whose first half is sent, then the signal, then the second half.
    const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = http.request(
        `${base}/api/posts`,
        {
          method: "POST",
          headers: {
            authorization: `Bearer ${member.token}`,
            "content-type": `multipart/form-data; boundary=${boundary}`,
            "content-length": String(body.length),
          },
        },
        (response) => {
          let text = "";
          response.on("data", (chunk: Buffer) => (text += chunk.toString()));
          response.on("end", () => {
            resolve({ status: response.statusCode ?? 0, body: text });
          });
        },
      );
      request.on("error", reject);
      const half = Math.floor(body.length / 2);
      request.write(body.subarray(0, half), () => {
        setTimeout(() => {
          server.child.kill("SIGTERM");
          setTimeout(() => request.end(body.subarray(half)), 500);
        }, 200);
      });
    });

    const { status, body: text } = await answer;
    expect(status, text).toBe(201);
    const created = JSON.parse(text) as { _id: string; title: string };
    expect(created.title).toBe("Sent while stopping");
    expect(await server.exited).toBe(0);
    // Stopped: nobody is listening any more.
    await expect(fetch(`${base}/livez`)).rejects.toThrow();

    // And the post it acknowledged is there after a restart.
    const again = await start();
    const post = await client(base).get(`/api/posts/${created._id}`);
    expect(post.status).toBe(200);
    again.child.kill("SIGTERM");
    expect(await again.exited).toBe(0);
  }, 60_000);
});
