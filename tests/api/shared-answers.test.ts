import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildUser, signInAdmin, type TestUser } from "../support/factories.js";
import { client, type Client } from "../support/http.js";
import {
  addCategory,
  addComment,
  addPost,
  toggleLikeOf,
  type PostDetail,
  type PostSummary,
} from "../support/post-fixtures.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

let server: TestServer;
let api: Client;
let author: TestUser;
let reader: TestUser;
/** Every SQL statement the server ran, in order. */
const queries: string[] = [];

beforeAll(async () => {
  server = await startTestServer({}, { onQuery: (sql) => queries.push(sql) });
  api = client(server.url);
  const admin = await signInAdmin(server, api);
  await addCategory(api, admin, "Travel");
  author = await buildUser(server, api);
  reader = await buildUser(server, api);
});
afterAll(async () => {
  await server.close();
});

describe("kept answers of the public reads", () => {
  it("keep nothing but success: a missing post stays 404 and is not remembered as found", async () => {
    const missing = "00000000-0000-4000-8000-000000000000";
    const first = await api.get(`/api/posts/${missing}`);
    expect(first.status).toBe(404);
    expect(first.headers.get("etag")).toBeNull();
    expect((await api.get(`/api/posts/${missing}`)).status).toBe(404);
  });

  it("answer 304 to a current validator, and 200 with a new one after a write", async () => {
    const first = await api.get("/api/posts?pageNumber=1");
    const etag = first.headers.get("etag") ?? "";
    expect(etag).toMatch(/^W\/".+"$/);
    expect(first.headers.get("cache-control")).toBe("no-cache");
    expect(
      (await api.get("/api/posts?pageNumber=1", { headers: { "if-none-match": etag } })).status,
    ).toBe(304);

    await addPost(api, author, { title: "Moves the validator", category: "Travel" });
    const after = await api.get<PostSummary[]>("/api/posts?pageNumber=1", {
      headers: { "if-none-match": etag },
    });
    expect(after.status).toBe(200);
    expect(after.body[0]?.title).toBe("Moves the validator");
  });

  it("show every kind of write on the next read", async () => {
    const post = await addPost(api, author, { title: "Watched", category: "Travel" });
    const read = async () => (await api.get<PostDetail>(`/api/posts/${post._id}`)).body;
    const count = async () => Number((await api.get("/api/posts/count")).text);
    expect((await read()).likesCount).toBe(0);
    const before = await count();

    await toggleLikeOf(api, reader, post._id);
    expect((await read()).likesCount).toBe(1);

    await addComment(api, reader, post._id, "Seen at once");
    expect((await read()).comments.map((c) => c.text)).toContain("Seen at once");

    expect(
      (
        await api.put(
          `/api/posts/${post._id}`,
          { title: "Renamed", category: "Travel", description: "Some words about it." },
          { token: author.token },
        )
      ).status,
    ).toBe(200);
    expect((await read()).title).toBe("Renamed");
    const list = await api.get<PostSummary[]>("/api/posts?pageNumber=1");
    expect(list.body.map((p) => p.title)).toContain("Renamed");

    expect((await api.delete(`/api/posts/${post._id}`, { token: author.token })).status).toBe(200);
    expect((await api.get(`/api/posts/${post._id}`)).status).toBe(404);
    expect(await count()).toBe(before - 1);
  });

  it("are the same whoever asks, and never hold anything private", async () => {
    const post = await addPost(api, author, { title: "Anyone's", category: "Travel" });
    const anonymous = await api.get(`/api/posts/${post._id}`);
    const signed = await api.get(`/api/posts/${post._id}`, { token: reader.token });
    expect(signed.text).toBe(anonymous.text);
    expect(signed.text).not.toContain(reader.email);
    expect(signed.text).not.toContain(author.email);
  });
});

// On PostgreSQL (CI's second pass) these reads overlap for real and the count proves they were
// coalesced; on SQLite each read finishes before the next request is parsed, so there is never
// more than one anyway (tests/unit/page-cache.test.ts proves the waiting on both engines).
describe("many readers of the same answer at once", () => {
  it("cost one read of the database, and all get the same fresh answer", async () => {
    const post = await addPost(api, author, { title: "Rushed", category: "Travel" });
    await addComment(api, reader, post._id, "First!");
    const before = queries.length;
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => api.get<PostDetail>(`/api/posts/${post._id}`)),
    );
    const ran = queries.slice(before);
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.body.comments.map((comment) => comment.text)).toEqual(["First!"]);
    }
    expect(new Set(answers.map((answer) => answer.headers.get("etag"))).size).toBe(1);
    // One reader made it (a post, its likers, its comments, plus session and version lookups at
    // most); the other nineteen waited for it instead of each reading the same rows.
    const postReads = ran.filter((sql) => /^select "comments"\.\*/i.test(sql));
    expect(postReads).toHaveLength(1);
  });

  it("are not held up by one that failed: a missing post answers 404 to every reader", async () => {
    const missing = "00000000-0000-4000-8000-0000000000aa";
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => api.get(`/api/posts/${missing}`)),
    );
    expect(answers.map((answer) => answer.status)).toEqual([404, 404, 404, 404, 404]);
  });
});

describe("with PAGE_CACHE=off", () => {
  let uncached: TestServer;
  const ran: string[] = [];
  beforeAll(async () => {
    uncached = await startTestServer({ PAGE_CACHE: "off" }, { onQuery: (sql) => ran.push(sql) });
  });
  afterAll(() => uncached.close());

  it("reads the database for every request, and sends no validator of a kept answer", async () => {
    for (const path of ["/api/posts?pageNumber=1", "/api/categories", "/api/posts/count"]) {
      const first = await fetch(`${uncached.url}${path}`);
      expect(first.status, path).toBe(200);
      await first.arrayBuffer();
      ran.length = 0;
      const second = await fetch(`${uncached.url}${path}`);
      await second.arrayBuffer();
      expect(ran.length, path).toBeGreaterThan(0);
      expect(second.headers.get("etag"), path).toBeNull();
    }
  });
});
