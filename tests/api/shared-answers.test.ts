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
/**
 * The commit that follows the next statement matching `after` fails once it has run: a write
 * committed, then lost on its way back (a write may be one statement or a transaction of several).
 */
let failCommitAfter: { after: RegExp; seen: boolean } | undefined;

beforeAll(async () => {
  server = await startTestServer(
    {},
    {
      // A job's statements (the outbox's worker after a write) are not a request's.
      onQuery: (sql, background) => {
        if (background) return;
        queries.push(sql);
        if (!failCommitAfter) return;
        if (!failCommitAfter.seen) failCommitAfter.seen = failCommitAfter.after.test(sql);
        else if (/^commit/i.test(sql)) {
          failCommitAfter = undefined;
          throw new Error("connection lost after the commit");
        }
      },
    },
  );
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

/** Runs `read` and says how many SQL statements the server ran for it (0: a kept answer). */
async function queriesOf<T>(read: () => Promise<T>): Promise<{ result: T; ran: number }> {
  const before = queries.length;
  const result = await read();
  return { result, ran: queries.length - before };
}

describe("what a kept answer is kept under", () => {
  it("is the same answer whatever query parameters the read does not take", async () => {
    const post = await addPost(api, author, { title: "Tracked", category: "Travel" });
    const list = await api.get("/api/posts?pageNumber=1&category=Travel");
    const detail = await api.get(`/api/posts/${post._id}`);
    for (let n = 1; n <= 5; n += 1) {
      const variants = [
        `/api/posts?utm_source=${String(n)}&pageNumber=1&category=Travel`,
        `/api/posts?category=Travel&pageNumber=1&cb=${String(n)}`,
      ];
      for (const path of variants) {
        const { result, ran } = await queriesOf(() => api.get(path));
        expect(ran, path).toBe(0);
        expect(result.headers.get("etag"), path).toBe(list.headers.get("etag"));
      }
      const { result, ran } = await queriesOf(() =>
        api.get(`/api/posts/${post._id}?utm=${String(n)}`),
      );
      expect(ran).toBe(0);
      expect(result.text).toBe(detail.text);
    }
    // The same id spelt otherwise: a trailing slash, a letter percent-encoded.
    const encoded = `%${post._id.charCodeAt(0).toString(16)}${post._id.slice(1)}`;
    for (const path of [`/api/posts/${post._id}/`, `/api/posts/${encoded}`]) {
      const { result, ran } = await queriesOf(() => api.get(path));
      expect(ran, path).toBe(0);
      expect(result.text, path).toBe(detail.text);
    }
  });

  it("tells apart what the read does take", async () => {
    await api.get("/api/posts?pageNumber=1");
    expect((await queriesOf(() => api.get("/api/posts?pageNumber=2"))).ran).toBeGreaterThan(0);
    const other = await queriesOf(() => api.get("/api/posts?pageNumber=1&category=Elsewhere"));
    expect(other.ran).toBeGreaterThan(0);
    expect(other.result.body).toEqual([]);
    // Two values of one parameter are not its first value alone: the read refuses them.
    expect((await api.get("/api/posts?pageNumber=1&pageNumber=x")).status).toBe(400);
  });
});

describe("kept searches (decision 015)", () => {
  interface Found {
    total: number;
    posts: { title: string }[];
  }
  const searchFor = (path: string) => queriesOf(() => api.get<Found>(path));

  it("answer the same search again without searching, until content changes", async () => {
    await addPost(api, author, { title: "Albatross sighting", category: "Travel" });
    const first = await searchFor("/api/search?q=albatross");
    expect(first.result.status).toBe(200);
    expect(first.result.body.total).toBe(1);
    expect(first.ran).toBeGreaterThan(0);
    const etag = first.result.headers.get("etag") ?? "";
    expect(etag).toMatch(/^W\/".+"$/);
    expect(first.result.headers.get("cache-control")).toBe("no-cache");

    const again = await searchFor("/api/search?q=albatross&utm_source=x");
    expect(again.ran).toBe(0);
    expect(again.result.text).toBe(first.result.text);
    const validated = await api.get("/api/search?q=albatross", {
      headers: { "if-none-match": etag },
    });
    expect(validated.status).toBe(304);

    // Another text or page is another search.
    expect((await searchFor("/api/search?q=Albatross")).ran).toBeGreaterThan(0);
    expect((await searchFor("/api/search?q=albatross&pageNumber=2")).ran).toBeGreaterThan(0);

    // A new post that matches is found by the very next search.
    await addPost(api, author, { title: "Albatross again", category: "Travel" });
    const after = await searchFor("/api/search?q=albatross");
    expect(after.ran).toBeGreaterThan(0);
    expect(after.result.body.total).toBe(2);
    expect(after.result.headers.get("etag")).not.toBe(etag);
  });

  it("keep nothing but success: a refused search carries no validator of a kept one", async () => {
    for (let n = 0; n < 2; n += 1) {
      const refused = await searchFor("/api/search?q=-");
      expect(refused.result.status).toBe(400);
      expect(refused.result.headers.get("etag")).toBeNull();
    }
  });
});

describe("writes that change nothing a visitor sees", () => {
  it("leave the kept answers alone: sign-ins, sign-outs, reset links, refused writes", async () => {
    const path = "/api/posts?pageNumber=1";
    const kept = await api.get(path);
    const session = await api.post<{ token: string }>("/api/auth/login", {
      email: reader.email,
      password: reader.password,
    });
    expect(session.status).toBe(200);
    const harmless = [
      await api.post("/api/auth/login", { email: reader.email, password: "Wrong-Pass1!" }),
      await api.post("/api/auth/logout", {}, { token: session.body.token }),
      await api.post("/api/auth/logout", {}, { token: "not-a-session-token-at-all" }),
      await api.post("/api/password/reset-password-link", { email: "nobody@example.com" }),
      await api.post("/api/password/reset-password-link", { email: reader.email }),
      await api.post("/api/auth/register", {
        username: "newcomer",
        email: "newcomer@example.com",
        password: "Newcomer-Pass1!",
      }),
      await api.put(
        `/api/posts/like/00000000-0000-4000-8000-0000000000bb`,
        {},
        { token: reader.token },
      ),
      await api.post("/api/comments", { text: "" }, { token: reader.token }),
    ];
    expect(harmless.map((reply) => reply.status)).toEqual([400, 204, 401, 200, 200, 201, 404, 400]);
    const { result, ran } = await queriesOf(() => api.get(path));
    expect(ran).toBe(0);
    expect(result.headers.get("etag")).toBe(kept.headers.get("etag"));
  });

  it("while every write that does is seen on the next read: categories and profiles too", async () => {
    const admin = await signInAdmin(server, api);
    const names = async () =>
      (await api.get<{ title: string; _id: string }[]>("/api/categories")).body;
    expect((await names()).map((c) => c.title)).not.toContain("Seen at once");
    const added = await addCategory(api, admin, "Seen at once");
    expect((await names()).map((c) => c.title)).toContain("Seen at once");
    expect((await api.delete(`/api/categories/${added._id}`, { token: admin.token })).status).toBe(
      200,
    );
    expect((await names()).map((c) => c.title)).not.toContain("Seen at once");

    const writer = await buildUser(server, api);
    await addPost(api, writer, { title: "By a renamed author", category: "Travel" });
    const byWriter = async () =>
      (await api.get<PostSummary[]>(`/api/users/user/${writer.id}?pageNumber=1`)).body[0]?.user
        .username;
    expect(await byWriter()).toBe(writer.username);
    const renamed = await api.put(
      `/api/users/profile/${writer.id}`,
      { username: "Renamed", email: writer.email, bio: "New here." },
      { token: writer.token },
    );
    expect(renamed.status).toBe(200);
    expect(await byWriter()).toBe("Renamed");
  });
});

describe("a post's likes and comments", () => {
  it("make again only what shows them: that post, and the lists counting them", async () => {
    const admin = await signInAdmin(server, api);
    await addCategory(api, admin, "Quiet");
    const bystander = await buildUser(server, api);
    const liked = await addPost(api, author, { title: "Zanzibar evenings", category: "Travel" });
    const other = await addPost(api, bystander, {
      title: "Kilimanjaro mornings",
      category: "Quiet",
    });
    const showing = {
      post: `/api/posts/${liked._id}`,
      list: "/api/posts?pageNumber=1&category=Travel",
      author: `/api/users/user/${author.id}?pageNumber=1`,
      search: "/api/search?q=zanzibar",
    };
    const notShowing = [
      `/api/posts/${other._id}`,
      "/api/posts?pageNumber=1&category=Quiet",
      `/api/users/user/${bystander.id}?pageNumber=1`,
      "/api/search?q=kilimanjaro",
      "/api/posts/count",
      "/api/categories",
    ];
    const counts = async (path: string) => {
      const { body } = await api.get<PostDetail | PostSummary[] | { posts: PostSummary[] }>(path);
      const posts = Array.isArray(body) ? body : "posts" in body ? body.posts : [body];
      const post = posts.find((p) => p._id === liked._id);
      return [post?.likesCount, post?.commentsCount];
    };
    const keptStill = async () => {
      for (const path of notShowing) {
        const { ran, result } = await queriesOf(() => api.get(path));
        expect([path, result.status, ran]).toEqual([path, 200, 0]);
      }
    };
    for (const path of [...Object.values(showing), ...notShowing]) {
      expect((await api.get(path)).status, path).toBe(200);
    }
    await keptStill();

    await toggleLikeOf(api, reader, liked._id);
    for (const path of Object.values(showing)) expect(await counts(path), path).toEqual([1, 0]);
    await keptStill();

    const comment = await addComment(api, reader, liked._id, "Worth the trip");
    for (const path of Object.values(showing)) expect(await counts(path), path).toEqual([1, 1]);
    expect((await api.get<PostDetail>(showing.post)).body.comments.map((c) => c.text)).toEqual([
      "Worth the trip",
    ]);
    await keptStill();

    const edited = await api.put(
      `/api/comments/${comment._id}`,
      { text: "Worth the journey" },
      { token: reader.token },
    );
    expect(edited.status).toBe(200);
    expect((await api.get<PostDetail>(showing.post)).body.comments.map((c) => c.text)).toEqual([
      "Worth the journey",
    ]);
    expect((await api.delete(`/api/comments/${comment._id}`, { token: reader.token })).status).toBe(
      200,
    );
    await toggleLikeOf(api, reader, liked._id);
    for (const path of Object.values(showing)) expect(await counts(path), path).toEqual([0, 0]);
    await keptStill();

    // Anything else about the post still makes every list again: its title shows in them.
    const renamed = await api.put(
      `/api/posts/${liked._id}`,
      { title: "Zanzibar nights", category: "Travel", description: "Some words about it." },
      { token: author.token },
    );
    expect(renamed.status).toBe(200);
    const { ran } = await queriesOf(() => api.get("/api/posts/count"));
    expect(ran).toBeGreaterThan(0);
  });
});

describe("a post's JSON, put together from kept pieces (decision 029)", () => {
  it("reads again only what a write changed: a like, not the comments", async () => {
    const post = await addPost(api, author, { title: "Pieces", category: "Travel" });
    const path = `/api/posts/${post._id}`;
    await addComment(api, reader, post._id, "First word");
    await addComment(api, author, post._id, "Second word");
    const texts = (body: PostDetail) => body.comments.map((c) => c.text);
    expect(texts((await api.get<PostDetail>(path)).body)).toEqual(["First word", "Second word"]);

    // A like: the post's row and likers are read again, its comments come from what was kept.
    const liked = await api.put<PostDetail>(`/api/posts/like/${post._id}`, undefined, {
      token: reader.token,
    });
    expect(liked.status).toBe(200);
    expect(texts(liked.body)).toEqual(["First word", "Second word"]);
    const { result, ran } = await queriesOf(() => api.get<PostDetail>(path));
    // Byte for byte what the like answered, and what a post whole would be.
    expect(result.text).toBe(liked.text);
    expect(JSON.stringify(result.body)).toBe(result.text);
    expect(result.body.likes.map((user) => user._id)).toEqual([reader.id]);
    expect(result.body.likesCount).toBe(1);
    expect(ran).toBe(2);

    // A comment reads them all again, and shows at once.
    await addComment(api, reader, post._id, "Third word");
    const commented = await queriesOf(() => api.get<PostDetail>(path));
    expect(texts(commented.result.body)).toEqual(["First word", "Second word", "Third word"]);
    expect(commented.ran).toBe(3);
    // Another post's comments are never these.
    const other = await addPost(api, author, { title: "Other pieces", category: "Travel" });
    expect((await api.get<PostDetail>(`/api/posts/${other._id}`)).body.comments).toEqual([]);

    // A commenter's new name (the site's version moves on) shows in the comments kept before.
    const renamed = await api.put(
      `/api/users/profile/${reader.id}`,
      { username: "renamedreader", email: reader.email, bio: "Reads", socialMedia: [] },
      { token: reader.token },
    );
    expect(renamed.status, renamed.text).toBe(200);
    const names = (await api.get<PostDetail>(path)).body.comments.map((c) => c.user.username);
    expect(names).toEqual(["renamedreader", author.username, "renamedreader"]);
  });
});

describe("a content write that fails after its commit", () => {
  it("still drops the kept answers: the next read shows what was committed", async () => {
    const post = await addPost(api, author, { title: "Half-failed", category: "Travel" });
    const read = async () => (await api.get<PostDetail>(`/api/posts/${post._id}`)).body;
    expect((await read()).comments).toEqual([]);
    failCommitAfter = { after: /^insert into "comments"/i, seen: false };
    const failed = await api.post(
      "/api/comments",
      { postId: post._id, text: "Committed, then lost" },
      { token: reader.token },
    );
    expect(failed.status).toBe(500);
    expect((await read()).comments.map((comment) => comment.text)).toEqual([
      "Committed, then lost",
    ]);
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
