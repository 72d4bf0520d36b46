import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo } from "../../bench/seed.js";
import { listPosts, listPostsInBatches, POST_BATCH } from "../../core/posts/posts-service.js";
import { signInAdmin, type TestUser } from "../support/factories.js";
import { client, type Client } from "../support/http.js";
import { addPost, type PostSummary } from "../support/post-fixtures.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

// The unpaged lists (`GET /api/posts`, `?category=`) are read and sent a batch at a time, so a
// site of any size answers them in bounded memory. More posts than two batches, half of them
// sharing one timestamp, so batches end in the middle of ties.

let server: TestServer;
let api: Client;
let admin: TestUser;
const POSTS = POST_BATCH * 2 + 37;

beforeAll(async () => {
  server = await startTestServer();
  api = client(server.url);
  admin = await signInAdmin(server, api);
  const { db, storage } = server.app.deps;
  await seedDemo(db, storage, { users: 8, categories: 3, posts: POSTS, likes: 300, comments: 300 });
  const ids = await db.selectFrom("posts").select("id").orderBy("id").execute();
  const tied = ids.filter((_, index) => index % 2 === 0).map((row) => row.id);
  await db
    .updateTable("posts")
    .set({ created_at: "2026-01-01T00:00:00.000Z" })
    .where("id", "in", tied)
    .execute();
}, 120_000);
afterAll(() => server.close());

async function collect(batches: AsyncGenerator<{ _id: string }[]>) {
  const all: { _id: string }[] = [];
  for await (const batch of batches) all.push(...batch);
  return all;
}

describe("every post, a batch at a time", () => {
  it("answers GET /api/posts with the very text of the whole list, as JSON", async () => {
    const reply = await fetch(`${server.url}/api/posts`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toBe("application/json; charset=utf-8");
    const text = await reply.text();
    expect(text).toBe(JSON.stringify(await listPosts(server.app.deps, {})));
    expect((JSON.parse(text) as unknown[]).length).toBe(POSTS);
  });

  it("answers ?category the same way, compressed as asked", async () => {
    const [category] = await server.app.deps.db.selectFrom("categories").select("title").execute();
    const title = category?.title ?? "";
    const reply = await fetch(`${server.url}/api/posts?category=${encodeURIComponent(title)}`, {
      headers: { "accept-encoding": "br" },
    });
    expect(reply.headers.get("content-encoding")).toBe("br");
    const expected = await listPosts(server.app.deps, { category: title });
    expect(expected.length).toBeGreaterThan(6);
    expect(await reply.text()).toBe(JSON.stringify(expected));
  });

  it("reads batches of any size through ties in time, in the order of the paged lists", async () => {
    const whole = await listPosts(server.app.deps, {});
    const byFives = await collect(listPostsInBatches(server.app.deps, {}, 5));
    expect(byFives.map((post) => post._id)).toEqual(whole.map((post) => post._id));
    const page2 = (await api.get<PostSummary[]>("/api/posts?pageNumber=2")).body;
    expect(page2.map((post) => post._id)).toEqual(whole.slice(6, 12).map((post) => post._id));
  });

  it("answers a crowd in turns, and frees the turns of clients who leave", async () => {
    const leaving = Array.from({ length: 4 }, () => new AbortController());
    const left = leaving.map((controller) =>
      fetch(`${server.url}/api/posts`, { signal: controller.signal }).then(
        (reply) => reply.text(),
        (error: unknown) => error,
      ),
    );
    const staying = Array.from({ length: 6 }, () =>
      fetch(`${server.url}/api/posts`).then(async (reply) => ({
        status: reply.status,
        length: (JSON.parse(await reply.text()) as unknown[]).length,
      })),
    );
    for (const controller of leaving) controller.abort();
    await Promise.all(left);
    expect(await Promise.all(staying)).toEqual(
      Array.from({ length: 6 }, () => ({ status: 200, length: POSTS })),
    );
    // Every turn came back: more whole lists than there are turns still get answered.
    const after = await Promise.all(
      Array.from({ length: 8 }, () => fetch(`${server.url}/api/posts`).then((r) => r.status)),
    );
    expect(after).toEqual(Array.from({ length: 8 }, () => 200));
  });

  it("neither repeats nor skips a post because of a write between two batches", async () => {
    const before = await listPosts(server.app.deps, {});
    const batches = listPostsInBatches(server.app.deps, {}, 50);
    const seen: { _id: string }[] = [];
    const first = await batches.next();
    if (!first.done) seen.push(...first.value);
    // A new post lands before the point reached, and one not yet read is deleted.
    const [category] = await server.app.deps.db.selectFrom("categories").select("title").execute();
    const added = await addPost(api, admin, { category: category?.title ?? "" });
    const doomed = before[200]?._id ?? "";
    expect((await api.delete(`/api/posts/${doomed}`, { token: admin.token })).status).toBe(200);
    seen.push(...(await collect(batches)));

    const ids = seen.map((post) => post._id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).not.toContain(added._id);
    expect(ids).toEqual(before.map((post) => post._id).filter((id) => id !== doomed));
  });
});
