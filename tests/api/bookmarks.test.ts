import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { buildUser, signInAdmin, type TestUser } from "../support/factories.js";
import { client } from "../support/http.js";
import {
  addCategory,
  addPost,
  expectPostSummaryShape,
  type ErrorBody,
  type PostSummary,
} from "../support/post-fixtures.js";
import { openTestSite } from "../support/site.js";
import { startTestServer } from "../support/test-server.js";

/** Bookmarks: a reader's saved posts (DESIGN.md 9, "Reading"; decision 016). */
const {
  server,
  api,
  users: { author },
} = await openTestSite({ users: ["author"], categories: ["Travel"] });

const bookmark = (id: string, token?: string) =>
  api.put<{ bookmarked: boolean } & ErrorBody>(
    `/api/posts/bookmark/${encodeURIComponent(id)}`,
    undefined,
    { token },
  );

const readingList = (token?: string, query = "") =>
  api.get<PostSummary[] & ErrorBody>(`/api/users/me/bookmarks${query}`, { token });

async function bookmarkRows(userId?: string) {
  let query = server.app.deps.db
    .selectFrom("bookmarks")
    .select((eb) => eb.fn.countAll<number | string>().as("n"));
  if (userId) query = query.where("user_id", "=", userId);
  return Number((await query.executeTakeFirstOrThrow()).n);
}

describe("PUT /api/posts/bookmark/:id: refusals", () => {
  let reader: TestUser;
  let post: PostSummary;
  beforeAll(async () => {
    reader = await buildUser(server, api);
    post = await addPost(api, author, { category: "Travel" });
  });

  it("answers 401 without a token, for the toggle and the list", async () => {
    for (const token of [undefined, "x".repeat(43)]) {
      expect((await bookmark(post._id, token)).status).toBe(401);
      expect((await readingList(token)).status).toBe(401);
    }
    expect(await bookmarkRows()).toBe(0);
  });

  it.each([randomUUID(), "abc", "' OR '1'='1"])("answers 404 for %j", async (id) => {
    const reply = await bookmark(id, reader.token);
    expect(reply.status, reply.text).toBe(404);
    expect(reply.body).toEqual({ message: "Post not found" });
    expect(await bookmarkRows()).toBe(0);
  });

  it("answers 404 for a draft or a scheduled post, its author included", async () => {
    const draft = await addPost(api, author, { category: "Travel", status: "draft" });
    const scheduled = await addPost(api, author, {
      category: "Travel",
      status: "scheduled",
      publishAt: new Date(Date.now() + 86_400_000).toISOString(),
    });
    for (const id of [draft._id, scheduled._id]) {
      for (const who of [reader, author]) {
        const reply = await bookmark(id, who.token);
        expect(reply.status, reply.text).toBe(404);
      }
    }
    expect(await bookmarkRows()).toBe(0);
  });

  it("answers 400 to a bad page of the list", async () => {
    expect((await readingList(reader.token, "?pageNumber=x")).status).toBe(400);
  });
});

describe("bookmarks", () => {
  it("saves on the first call and removes on the second; the list is the reader's own", async () => {
    const reader = await buildUser(server, api);
    const other = await buildUser(server, api);
    const post = await addPost(api, author, { title: "Keep me", category: "Travel" });

    const saved = await bookmark(post._id, reader.token);
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body).toEqual({ bookmarked: true });
    expect(await bookmarkRows(reader.id)).toBe(1);
    const list = await readingList(reader.token);
    expect(list.body.map((p) => p._id)).toEqual([post._id]);
    list.body.forEach(expectPostSummaryShape);
    expect((await readingList(other.token)).body).toEqual([]);

    expect((await bookmark(post._id, reader.token)).body).toEqual({ bookmarked: false });
    expect(await bookmarkRows(reader.id)).toBe(0);
    expect((await readingList(reader.token)).body).toEqual([]);
  });

  it("lists the most recently saved first, in pages of 6, and hides posts moved to drafts", async () => {
    const reader = await buildUser(server, api);
    const posts: PostSummary[] = [];
    for (let i = 0; i < 8; i += 1) {
      posts.push(await addPost(api, author, { title: `Saved ${String(i)}`, category: "Travel" }));
    }
    // Saved oldest-published first, so the saving order differs from the publishing order.
    for (const post of posts) await bookmark(post._id, reader.token);
    const savedOrder = posts.map((post) => post._id).reverse();
    expect((await readingList(reader.token)).body.map((p) => p._id)).toEqual(
      savedOrder.slice(0, 6),
    );
    expect((await readingList(reader.token, "?pageNumber=2")).body.map((p) => p._id)).toEqual(
      savedOrder.slice(6),
    );

    const [first] = posts;
    if (!first) throw new Error("no post");
    const unpublished = await api.put(
      `/api/posts/${first._id}`,
      { title: first.title, category: "Travel", description: first.description, status: "draft" },
      { token: author.token },
    );
    expect(unpublished.status, unpublished.text).toBe(200);
    const page2 = await readingList(reader.token, "?pageNumber=2");
    expect(page2.body.map((p) => p._id)).not.toContain(first._id);
  });

  it("go with their post, and with the reader's account", async () => {
    const reader = await buildUser(server, api);
    const post = await addPost(api, author, { category: "Travel" });
    const kept = await addPost(api, author, { category: "Travel" });
    await bookmark(post._id, reader.token);
    await bookmark(kept._id, reader.token);
    expect(await bookmarkRows(reader.id)).toBe(2);

    expect((await api.delete(`/api/posts/${post._id}`, { token: author.token })).status).toBe(200);
    expect(await bookmarkRows(reader.id)).toBe(1);

    const gone = await api.delete(`/api/users/profile/${reader.id}`, { token: reader.token });
    expect(gone.status, gone.text).toBe(200);
    expect(await bookmarkRows(reader.id)).toBe(0);
  });
});

describe("rate limit", () => {
  it("stops bookmark toggles from one address after 120 in 5 minutes, storing nothing more", async () => {
    const limited = await startTestServer({ RATE_LIMITS: "on" });
    try {
      const limitedApi = client(limited.url);
      const limitedAdmin = await signInAdmin(limited, limitedApi);
      await addCategory(limitedApi, limitedAdmin, "Travel");
      const reader = await buildUser(limited, limitedApi);
      const post = await addPost(limitedApi, limitedAdmin, { category: "Travel" });
      const toggle = () =>
        limitedApi.put(`/api/posts/bookmark/${post._id}`, undefined, { token: reader.token });
      for (let i = 0; i < 120; i += 1) expect((await toggle()).status).toBe(200);
      const refused = await toggle();
      expect(refused.status, refused.text).toBe(429);
      const rows = await limited.app.deps.db.selectFrom("bookmarks").selectAll().execute();
      expect(rows).toEqual([]);
    } finally {
      await limited.close();
    }
  });
});
