import { randomUUID } from "node:crypto";
import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { type ImageUpload, type Reply } from "../support/http.js";
import {
  fetchServed,
  filesOfImage,
  gifImage,
  pngClaiming,
  pngImage,
  pngOfSize,
  uploadedFiles,
} from "../support/images.js";
import {
  addCategory,
  addComment,
  addPost,
  commentRows,
  expectPostSummaryShape,
  expectPublicUser,
  likeRows,
  orphanImageFolders,
  postRows,
  toggleLikeOf,
  type ErrorBody,
  type PostDetail,
  type PostSummary,
} from "../support/post-fixtures.js";
import { openTestSite } from "../support/site.js";

const {
  server,
  api,
  admin,
  users: { writer, other },
} = await openTestSite({ users: ["writer", "other"], categories: ["Travel", "Music"] });

/** Ids that are not a post: unknown, malformed and injection-shaped. */
const MISSING_IDS = [randomUUID(), "abc", "1 OR 1=1", "' OR '1'='1"];
const pathId = (id: string) => encodeURIComponent(id);

const idsOf = (posts: readonly { _id: string }[]) => posts.map((post) => post._id);
const newestFirst = (posts: readonly { _id: string }[]) => idsOf(posts).reverse();

function expectError(reply: Reply, status: number, message?: string) {
  expect(reply.status, reply.text).toBe(status);
  const body = reply.body as Partial<ErrorBody>;
  expect(typeof body.message).toBe("string");
  if (message !== undefined) expect(body.message).toBe(message);
}

/** Runs a request that must be refused and checks it added no post row and no file. */
async function refusedWithoutTrace(request: () => Promise<Reply<ErrorBody>>) {
  const posts = await postRows(server);
  const files = await uploadedFiles(server);
  const reply = await request();
  expect(await postRows(server)).toBe(posts);
  expect(await uploadedFiles(server)).toEqual(files);
  return reply;
}

const green = { width: 40, height: 30, channels: 3 as const, background: "#22aa44" };

const getPost = (id: string) => api.get<PostDetail>(`/api/posts/${pathId(id)}`);

// This block runs first: it needs the database with no post at all.
describe("GET /api/posts, its count and the other post lists", () => {
  it("answers the count as a bare 0 on an empty database, and an empty list", async () => {
    const count = await api.get("/api/posts/count");
    expect(count.status).toBe(200);
    expect(count.text).toBe("0");
    const list = await api.get<PostSummary[]>("/api/posts");
    expect(list.status).toBe(200);
    expect(list.body).toEqual([]);
  });

  it.each(["0", "-1", "abc", "1.5", ""])("refuses pageNumber=%j with 400", async (pageNumber) => {
    const paths = ["/api/posts", "/api/categories/category/Travel", `/api/users/user/${writer.id}`];
    for (const path of paths) {
      const reply = await api.get<ErrorBody>(
        `${path}?pageNumber=${encodeURIComponent(pageNumber)}`,
      );
      expectError(reply, 400);
    }
  });

  describe("with 13 posts by two authors in two categories", () => {
    /** Oldest first, as they were made. */
    const made: PostDetail[] = [];
    const byWriter = () => made.filter((post) => post.user._id === writer.id);
    const inTravel = () => made.filter((post) => post.category === "Travel");

    beforeAll(async () => {
      for (let i = 0; i < 13; i += 1) {
        made.push(
          await addPost(api, i % 2 === 0 ? writer : other, {
            title: `Post ${String(i)}`,
            category: i % 3 === 0 ? "Music" : "Travel",
          }),
        );
      }
      expect(byWriter()).toHaveLength(7);
      expect(inTravel()).toHaveLength(8);
    });

    it("counts them", async () => {
      const reply = await api.get("/api/posts/count");
      expect(reply.text).toBe("13");
    });

    it("pages by 6, newest first: 6, 6, 1, then an empty page", async () => {
      const all = newestFirst(made);
      const pages: string[][] = [];
      for (const pageNumber of [1, 2, 3, 4]) {
        const reply = await api.get<PostSummary[]>(`/api/posts?pageNumber=${pageNumber}`);
        expect(reply.status).toBe(200);
        pages.push(idsOf(reply.body));
      }
      expect(pages).toEqual([all.slice(0, 6), all.slice(6, 12), all.slice(12), []]);
    });

    it("answers an empty page far past the last one", async () => {
      const reply = await api.get<PostSummary[]>("/api/posts?pageNumber=999999999");
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body).toEqual([]);
    });

    it("gives every post without paging, newest first", async () => {
      const reply = await api.get<PostSummary[]>("/api/posts");
      expect(reply.status).toBe(200);
      expect(idsOf(reply.body)).toEqual(newestFirst(made));
    });

    it("gives every post of a category with ?category, more than a page of them", async () => {
      const reply = await api.get<PostSummary[]>("/api/posts?category=Travel");
      expect(reply.status).toBe(200);
      expect(idsOf(reply.body)).toEqual(newestFirst(inTravel()));
      expect(reply.body.every((post) => post.category === "Travel")).toBe(true);
    });

    it("shows exactly the public fields of each post and no e-mail anywhere", async () => {
      const reply = await api.get<PostSummary[]>("/api/posts");
      expect(reply.body).toHaveLength(13);
      for (const post of reply.body) {
        expectPostSummaryShape(post);
        expect(post._id).toBe(post.id);
        expect(post.user._id).toBe(post.user.id);
      }
      expect(reply.text).not.toMatch(/email/i);
      for (const person of [writer, other, admin]) expect(reply.text).not.toContain(person.email);
    });

    it("counts each post's likes and comments", async () => {
      const newest = made.at(-1);
      if (!newest) throw new Error("no post was made");
      await toggleLikeOf(api, other, newest._id);
      await toggleLikeOf(api, writer, newest._id);
      await addComment(api, other, newest._id, "Nice one");
      const reply = await api.get<PostSummary[]>("/api/posts?pageNumber=1");
      expect(reply.body.map((post) => [post.likesCount, post.commentsCount])).toEqual([
        [2, 1],
        [0, 0],
        [0, 0],
        [0, 0],
        [0, 0],
        [0, 0],
      ]);
    });

    it("pages a category by 6 on /api/categories/category/:category", async () => {
      const travel = newestFirst(inTravel());
      const pages: string[][] = [];
      for (const pageNumber of [1, 2, 3]) {
        const reply = await api.get<PostSummary[]>(
          `/api/categories/category/Travel?pageNumber=${pageNumber}`,
        );
        expect(reply.status).toBe(200);
        reply.body.forEach(expectPostSummaryShape);
        pages.push(idsOf(reply.body));
      }
      expect(pages).toEqual([travel.slice(0, 6), travel.slice(6), []]);
    });

    it("pages one author's posts by 6 on /api/users/user/:id", async () => {
      const own = newestFirst(byWriter());
      const pages: string[][] = [];
      for (const pageNumber of [1, 2, 3]) {
        const reply = await api.get<PostSummary[]>(
          `/api/users/user/${writer.id}?pageNumber=${pageNumber}`,
        );
        expect(reply.status).toBe(200);
        reply.body.forEach(expectPostSummaryShape);
        pages.push(idsOf(reply.body));
      }
      expect(pages).toEqual([own.slice(0, 6), own.slice(6), []]);
    });

    it.each([randomUUID(), "abc", "1 OR 1=1"])(
      "answers 404 on /api/users/user/:id for %j",
      async (id) => {
        const reply = await api.get<ErrorBody>(`/api/users/user/${pathId(id)}?pageNumber=1`);
        expectError(reply, 404);
      },
    );

    it("lists the author's posts, and only theirs, on the public profile", async () => {
      const reply = await api.get<{ posts: PostSummary[] }>(`/api/users/profile/${writer.id}`);
      expect(reply.status).toBe(200);
      expect(idsOf(reply.body.posts)).toEqual(newestFirst(byWriter()));
      reply.body.posts.forEach(expectPostSummaryShape);
      expect(reply.text).not.toContain(writer.email);
    });
  });
});

describe("GET /api/posts/:id", () => {
  it.each(MISSING_IDS)("answers 404 for %j", async (id) => {
    expectError(await getPost(id), 404);
  });

  it("gives the post with its likers and its comments, each with a public user", async () => {
    const post = await addPost(api, writer, { category: "Travel" });
    await toggleLikeOf(api, other, post._id);
    const first = await addComment(api, other, post._id, "First!");
    const second = await addComment(api, writer, post._id, "Thanks for reading");

    const reply = await getPost(post._id);
    expect(reply.status).toBe(200);
    const { likes, comments, html, ...summary } = reply.body;
    expectPostSummaryShape(summary);
    expect(html).toBe("<p>Some words about it.</p>\n");
    expect(reply.body).toMatchObject({ _id: post._id, likesCount: 1, commentsCount: 2 });
    expect(likes).toEqual([
      {
        _id: other.id,
        id: other.id,
        username: other.username,
        profilePhoto: { url: server.app.deps.site.defaultAvatarUrl },
      },
    ]);
    expect(comments.map((comment) => comment._id)).toEqual([first._id, second._id]);
    for (const [comment, author] of [
      [comments[0], other],
      [comments[1], writer],
    ] as const) {
      expect(comment).toMatchObject({
        postId: post._id,
        userName: author.username,
        user: { _id: author.id, username: author.username },
      });
      expectPublicUser(comment?.user);
    }
    expect(comments.map((comment) => comment.text)).toEqual(["First!", "Thanks for reading"]);
    expect(reply.text).not.toMatch(/email/i);
  });
});

describe("an id longer than any route parameter", () => {
  // The router refuses an over-long parameter before any route; it still answers 404 in the envelope.
  it("answers 404 with the error envelope on every post route", async () => {
    const id = "a".repeat(300);
    const file = { bytes: await pngImage() };
    const asWriter = { token: writer.token };
    const fields = { title: "t", category: "Travel", description: "d" };
    const replies = [
      await getPost(id),
      await api.put(`/api/posts/${id}`, fields, asWriter),
      await api.form("PUT", `/api/posts/post-image/${id}`, { file }, asWriter),
      await api.put(`/api/posts/like/${id}`, undefined, asWriter),
      await api.delete(`/api/posts/${id}`, asWriter),
    ];
    for (const reply of replies) {
      expect(reply.status, reply.text).toBe(404);
      expect(Object.keys(reply.body)).toEqual(["message"]);
    }
  });
});

describe("POST /api/posts: refusals", () => {
  const fields = { title: "Hello", category: "Travel", description: "A trip." };
  const png = () => pngImage();

  const create = async (parts: { fields?: Record<string, string>; file?: ImageUpload }) =>
    api.form<ErrorBody>("POST", "/api/posts", parts, { token: writer.token });

  it("answers 401 without a token", async () => {
    const file = { bytes: await png() };
    const reply = await refusedWithoutTrace(() =>
      api.form<ErrorBody>("POST", "/api/posts", { fields, file }),
    );
    expectError(reply, 401);
  });

  it("answers 401 for a token that is not a session", async () => {
    const file = { bytes: await png() };
    const reply = await refusedWithoutTrace(() =>
      api.form<ErrorBody>("POST", "/api/posts", { fields, file }, { token: "x".repeat(43) }),
    );
    expectError(reply, 401);
  });

  it("answers 400 'image is required' without a file", async () => {
    const reply = await refusedWithoutTrace(() => create({ fields }));
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({
      message: "image is required",
      errors: { image: "image is required" },
    });
  });

  it.each([
    ["title", undefined, "Post title is required"],
    ["title", "   ", "Post title is required"],
    ["category", undefined, "Post category is required"],
    ["category", "", "Post category is required"],
    ["description", undefined, "Post description is required"],
    ["description", " \n ", "Post description is required"],
  ])("answers 400 when %s is %j", async (field, value, message) => {
    const asked: Record<string, string | undefined> = { ...fields, [field]: value };
    const sent = Object.fromEntries(
      Object.entries(asked).filter((entry): entry is [string, string] => entry[1] !== undefined),
    );
    const file = { bytes: await png() };
    const reply = await refusedWithoutTrace(() => create({ fields: sent, file }));
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ message, errors: { [field]: message } });
  });

  it("reports every missing field at once, the image first", async () => {
    const reply = await refusedWithoutTrace(() => create({}));
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({
      message: "image is required",
      errors: {
        image: "image is required",
        title: "Post title is required",
        category: "Post category is required",
        description: "Post description is required",
      },
    });
  });

  it("answers 400 for a category that does not exist", async () => {
    const file = { bytes: await png() };
    const reply = await refusedWithoutTrace(() =>
      create({ fields: { ...fields, category: "Nowhere" }, file }),
    );
    expectError(reply, 400);
    expect(typeof reply.body.errors?.category).toBe("string");
  });

  it("answers 415 for text named photo.jpg", async () => {
    const file = {
      bytes: Buffer.from("just some text, not a picture\n".repeat(20)),
      filename: "photo.jpg",
      contentType: "image/jpeg",
    };
    const reply = await refusedWithoutTrace(() => create({ fields, file }));
    expect(reply.status).toBe(415);
    expect(reply.body).toEqual({ message: "Unsupported File Format" });
  });

  it.each([
    ["drawing.svg", "image/svg+xml"],
    ["drawing.png", "image/png"],
  ])("answers 415 for an SVG sent as %s", async (filename, contentType) => {
    const svg =
      '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">' +
      '<script>alert(1)</script><rect width="10" height="10"/></svg>';
    const file = { bytes: Buffer.from(svg), filename, contentType };
    const reply = await refusedWithoutTrace(() => create({ fields, file }));
    expect(reply.status).toBe(415);
    expect(reply.body).toEqual({ message: "Unsupported File Format" });
  });

  it("answers 413 'File size is too large' above 7,000,000 bytes", async () => {
    const file = { bytes: await pngOfSize(7_000_001) };
    const reply = await refusedWithoutTrace(() => create({ fields, file }));
    expect(reply.status).toBe(413);
    expect(reply.body).toEqual({ message: "File size is too large" });
  });

  it("refuses a small PNG that claims 100000x100000 pixels with a 4xx", async () => {
    const file = { bytes: pngClaiming(100_000, 100_000) };
    const reply = await refusedWithoutTrace(() => create({ fields, file }));
    expect(reply.status).toBeGreaterThanOrEqual(400);
    expect(reply.status).toBeLessThan(500);
  });
});

describe("POST /api/posts", () => {
  it("creates a post, filed under the category's own spelling, with its image served", async () => {
    const before = await postRows(server);
    const reply = await api.form<PostDetail>(
      "POST",
      "/api/posts",
      {
        fields: { title: "Lisbon", category: "tRAVEL", description: "Trams and tiles." },
        file: { bytes: await pngImage(), filename: "lisbon.png" },
      },
      { token: writer.token },
    );
    expect(reply.status, reply.text).toBe(201);
    expect(reply.body).toMatchObject({
      title: "Lisbon",
      category: "Travel",
      description: "Trams and tiles.",
      user: { _id: writer.id, username: writer.username },
      likes: [],
      comments: [],
      likesCount: 0,
      commentsCount: 0,
    });
    expect(await postRows(server)).toBe(before + 1);

    const read = await getPost(reply.body._id);
    expect(read.body.category).toBe("Travel");
    expect(read.body.image.url).toBe(reply.body.image.url);

    expect(await filesOfImage(server, reply.body.image.url)).not.toEqual([]);
    const served = await fetchServed(server, reply.body.image.url);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("image/webp");
    expect(served.headers.get("cache-control")).toContain("immutable");
    expect(served.bytes.subarray(8, 12).toString("latin1")).toBe("WEBP");
  });

  it.each([
    ["a GIF", () => gifImage(), "photo.gif", "image/gif"],
    ["a JPEG", () => sharp({ create: green }).jpeg().toBuffer(), "photo.jfif", "image/jpeg"],
    ["a PNG named .txt", () => pngImage(), "notes.txt", "text/plain"],
  ])("accepts %s, reading the type from the bytes", async (_name, make, filename, contentType) => {
    const reply = await api.form<PostDetail>(
      "POST",
      "/api/posts",
      {
        fields: { title: "Typed", category: "Music", description: "Some words." },
        file: { bytes: await make(), filename, contentType },
      },
      { token: writer.token },
    );
    expect(reply.status, reply.text).toBe(201);
    expect((await fetchServed(server, reply.body.image.url)).status).toBe(200);
  });

  it("accepts an image of exactly 7,000,000 bytes", async () => {
    const reply = await api.form<PostDetail>(
      "POST",
      "/api/posts",
      {
        fields: { title: "At the limit", category: "Music", description: "Big." },
        file: { bytes: await pngOfSize(7_000_000) },
      },
      { token: writer.token },
    );
    expect(reply.status, reply.text).toBe(201);
  });

  it("stores and returns HTML and SQL-like text exactly as written", async () => {
    const title = "<script>alert(1)</script>";
    // HTML in a body is kept as written (and shown as text); a script is refused (markdown.test.ts).
    const description = '\'; DROP TABLE posts; -- and <img src=x title="a"> <b>bold</b>';
    const post = await addPost(api, writer, { title, description, category: "Travel" });
    expect(post).toMatchObject({ title, description });
    expect((await getPost(post._id)).body).toMatchObject({ title, description });
    const listed = (await api.get<PostSummary[]>("/api/posts")).body.find(
      (item) => item._id === post._id,
    );
    expect(listed).toMatchObject({ title, description });
    const row = await server.app.deps.db
      .selectFrom("posts")
      .select(["title", "description"])
      .where("id", "=", post._id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ title, description });
  });
});

describe("PUT /api/posts/:id", () => {
  let post: PostDetail;
  const valid = { title: "New title", category: "Music", description: "New words." };

  beforeAll(async () => {
    post = await addPost(api, writer, { title: "Old title", category: "Travel" });
  });

  const stored = () =>
    server.app.deps.db
      .selectFrom("posts")
      .select(["title", "category", "description"])
      .where("id", "=", post._id)
      .executeTakeFirstOrThrow();

  it("answers 401 without a token", async () => {
    expectError(await api.put<ErrorBody>(`/api/posts/${post._id}`, valid), 401);
    expect((await stored()).title).toBe("Old title");
  });

  it.each(MISSING_IDS)("answers 404 for %j", async (id) => {
    const reply = await api.put<ErrorBody>(`/api/posts/${pathId(id)}`, valid, {
      token: writer.token,
    });
    expectError(reply, 404);
  });

  it("answers 403 to another user and to an admin who is not the author", async () => {
    for (const caller of [other, admin]) {
      const reply = await api.put<ErrorBody>(`/api/posts/${post._id}`, valid, {
        token: caller.token,
      });
      expectError(reply, 403);
    }
    expect(await stored()).toMatchObject({ title: "Old title", category: "Travel" });
  });

  it.each([
    ["title", undefined, "Title is required"],
    ["title", "  ", "Title is required"],
    ["category", undefined, "Category is required"],
    ["category", "", "Category is required"],
    ["description", undefined, "Description is required"],
    ["description", 42, "Description is required"],
  ])("answers 400 when %s is %j", async (field, value, message) => {
    const reply = await api.put<ErrorBody>(
      `/api/posts/${post._id}`,
      { ...valid, [field]: value },
      { token: writer.token },
    );
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ message, errors: { [field]: message } });
    expect((await stored()).title).toBe("Old title");
  });

  it("answers 400 for a change to a category that does not exist", async () => {
    const reply = await api.put<ErrorBody>(
      `/api/posts/${post._id}`,
      { ...valid, category: "Nowhere" },
      { token: writer.token },
    );
    expectError(reply, 400);
    expect(typeof reply.body.errors?.category).toBe("string");
    expect(await stored()).toMatchObject({ title: "Old title", category: "Travel" });
  });

  it("updates the post for its author and returns it", async () => {
    const reply = await api.put<PostDetail>(
      `/api/posts/${post._id}`,
      { ...valid, category: "music" },
      { token: writer.token },
    );
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({
      _id: post._id,
      title: "New title",
      category: "Music",
      description: "New words.",
      image: post.image,
      user: { _id: writer.id },
      likes: [],
      comments: [],
    });
    expect(reply.body.updatedAt >= post.updatedAt).toBe(true);
    expect((await getPost(post._id)).body).toMatchObject({ title: "New title", category: "Music" });
  });

  it("keeps a category that was deleted since, but refuses a change to another missing one", async () => {
    const category = await addCategory(api, admin, "Ephemeral");
    const filed = await addPost(api, writer, { category: "Ephemeral" });
    const removed = await api.delete(`/api/categories/${category._id}`, { token: admin.token });
    expect(removed.status).toBe(200);

    const kept = await api.put<PostDetail>(
      `/api/posts/${filed._id}`,
      { title: "Still here", category: "Ephemeral", description: "Kept." },
      { token: writer.token },
    );
    expect(kept.status, kept.text).toBe(200);
    expect(kept.body).toMatchObject({ title: "Still here", category: "Ephemeral" });

    const moved = await api.put<ErrorBody>(
      `/api/posts/${filed._id}`,
      { title: "Still here", category: "Vanished", description: "Kept." },
      { token: writer.token },
    );
    expectError(moved, 400);
    expect((await getPost(filed._id)).body.category).toBe("Ephemeral");
  });
});

describe("PUT /api/posts/post-image/:id", () => {
  let post: PostDetail;

  beforeAll(async () => {
    post = await addPost(api, writer, { category: "Travel" });
  });

  const replace = (id: string, file: ImageUpload | undefined, token?: string) =>
    api.form<PostDetail & ErrorBody>(
      "PUT",
      `/api/posts/post-image/${pathId(id)}`,
      file ? { file } : { fields: { note: "no file" } },
      { token },
    );

  /** A refused replacement stores no file and leaves the post's image as it was. */
  async function refusedReplacement(request: () => Promise<Reply<PostDetail & ErrorBody>>) {
    const files = await uploadedFiles(server);
    const reply = await request();
    expect(await uploadedFiles(server)).toEqual(files);
    expect((await getPost(post._id)).body.image.url).toBe(post.image.url);
    return reply;
  }

  it("answers 401 without a token", async () => {
    const file = { bytes: await pngImage() };
    expectError(await refusedReplacement(() => replace(post._id, file)), 401);
  });

  it.each(MISSING_IDS)("answers 404 for %j", async (id) => {
    const file = { bytes: await pngImage() };
    expectError(await refusedReplacement(() => replace(id, file, writer.token)), 404);
  });

  it("answers 403 to another user and to an admin who is not the author", async () => {
    const file = { bytes: await pngImage() };
    for (const caller of [other, admin]) {
      expectError(await refusedReplacement(() => replace(post._id, file, caller.token)), 403);
    }
  });

  it("answers 400 'image is required' without a file", async () => {
    const reply = await refusedReplacement(() => replace(post._id, undefined, writer.token));
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ message: "image is required" });
  });

  it("answers 413 'File size is too large' above 5,242,880 bytes", async () => {
    const file = { bytes: await pngOfSize(5_242_881) };
    const reply = await refusedReplacement(() => replace(post._id, file, writer.token));
    expect(reply.status).toBe(413);
    expect(reply.body).toEqual({ message: "File size is too large" });
  });

  it("answers 415 for a file that is not an image", async () => {
    const file = { bytes: Buffer.from("plain text"), filename: "photo.png" };
    const reply = await refusedReplacement(() => replace(post._id, file, writer.token));
    expect(reply.status).toBe(415);
    expect(reply.body).toEqual({ message: "Unsupported File Format" });
  });

  it("replaces the image and removes the old files from disk and from the web", async () => {
    const oldUrl = post.image.url;
    expect(await filesOfImage(server, oldUrl)).not.toEqual([]);
    const file = { bytes: await pngImage(90, 60) };
    const reply = await replace(post._id, file, writer.token);
    expect(reply.status, reply.text).toBe(200);
    const newUrl = reply.body.image.url;
    expect(newUrl).not.toBe(oldUrl);
    expect((await getPost(post._id)).body.image.url).toBe(newUrl);

    expect(await filesOfImage(server, oldUrl)).toEqual([]);
    expect((await fetchServed(server, oldUrl)).status).toBe(404);
    expect(await filesOfImage(server, newUrl)).not.toEqual([]);
    const served = await fetchServed(server, newUrl);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("image/webp");
  });

  // Overlapping replacements must not strand the images that lost the race.
  it("leaves no orphan files when the author replaces the image several times at once", async () => {
    const target = await addPost(api, writer, { category: "Travel" });
    expect(await orphanImageFolders(server)).toEqual([]);
    const replies = await Promise.all(
      [1, 2, 3, 4, 5].map(async (n) =>
        replace(target._id, { bytes: await pngImage(20 + n, 20) }, writer.token),
      ),
    );
    expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200, 200, 200]);
    const current = (await getPost(target._id)).body.image.url;
    expect(await filesOfImage(server, current)).not.toEqual([]);
    expect(await orphanImageFolders(server)).toEqual([]);
  });
});

describe("DELETE /api/posts/:id", () => {
  let post: PostDetail;

  beforeAll(async () => {
    post = await addPost(api, writer, { category: "Travel" });
  });

  it("answers 401 without a token", async () => {
    expectError(await api.delete<ErrorBody>(`/api/posts/${post._id}`), 401);
    expect((await getPost(post._id)).status).toBe(200);
  });

  it.each(MISSING_IDS)("answers 404 for %j", async (id) => {
    const reply = await api.delete<ErrorBody>(`/api/posts/${pathId(id)}`, {
      token: writer.token,
    });
    expectError(reply, 404);
  });

  it("answers 403 to another user who is not an admin", async () => {
    const reply = await api.delete<ErrorBody>(`/api/posts/${post._id}`, { token: other.token });
    expectError(reply, 403);
    expect((await getPost(post._id)).status).toBe(200);
  });

  it("deletes the post for its author, with its likes, comments and image files", async () => {
    await toggleLikeOf(api, other, post._id);
    await toggleLikeOf(api, writer, post._id);
    await addComment(api, other, post._id, "Going, going");
    expect(await likeRows(server, post._id)).toBe(2);
    expect(await commentRows(server, post._id)).toBe(1);
    expect(await filesOfImage(server, post.image.url)).not.toEqual([]);

    const reply = await api.delete(`/api/posts/${post._id}`, { token: writer.token });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual({ postId: post._id, message: "Post has been deleted successfully" });

    expect(await likeRows(server, post._id)).toBe(0);
    expect(await commentRows(server, post._id)).toBe(0);
    expect(await filesOfImage(server, post.image.url)).toEqual([]);
    expect((await fetchServed(server, post.image.url)).status).toBe(404);
    expectError(await getPost(post._id), 404);
    const again = await api.delete<ErrorBody>(`/api/posts/${post._id}`, { token: writer.token });
    expectError(again, 404);
  });

  it("lets an admin delete another user's post", async () => {
    const target = await addPost(api, other, { category: "Music" });
    const reply = await api.delete(`/api/posts/${target._id}`, { token: admin.token });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({ postId: target._id });
    expectError(await getPost(target._id), 404);
    expect(await filesOfImage(server, target.image.url)).toEqual([]);
  });
});

describe("deleting a category", () => {
  it("leaves its posts in place with their category title", async () => {
    const category = await addCategory(api, admin, "Gardening");
    const first = await addPost(api, writer, { category: "gardening" });
    const second = await addPost(api, other, { category: "Gardening" });
    const before = await postRows(server);

    const reply = await api.delete(`/api/categories/${category._id}`, { token: admin.token });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({ categoryId: category._id });
    const titles = (await api.get<{ title: string }[]>("/api/categories")).body.map((c) => c.title);
    expect(titles).not.toContain("Gardening");

    expect(await postRows(server)).toBe(before);
    const listed = await api.get<PostSummary[]>("/api/posts?category=Gardening");
    expect(idsOf(listed.body)).toEqual([second._id, first._id]);
    for (const post of [first, second]) {
      const read = await getPost(post._id);
      expect(read.status).toBe(200);
      expect(read.body.category).toBe("Gardening");
    }
  });
});
