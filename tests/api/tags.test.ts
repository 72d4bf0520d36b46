import { describe, expect, it } from "vitest";
import { newId } from "../../core/shared/ids.js";
import { migrateTo, migrateToLatest } from "../../db/connect.js";
import { buildUser, type TestUser } from "../support/factories.js";
import { client, type Reply } from "../support/http.js";
import { pngImage } from "../support/images.js";
import {
  addPost,
  type ErrorBody,
  type PostDetail,
  type PostInput,
  type PostSummary,
} from "../support/post-fixtures.js";
import { openTestSite } from "../support/site.js";
import { startTestServer } from "../support/test-server.js";

// DESIGN.md 10 "Writing": tags, the meta description and the canonical URL (issue 32).

const {
  server,
  api,
  users: { author, other },
} = await openTestSite({ users: ["author", "other"], categories: ["Tagging"] });

function expectError(reply: Reply, status: number, field: string, message: string) {
  expect(reply.status, reply.text).toBe(status);
  const body = reply.body as Partial<ErrorBody>;
  expect(body.message).toBe(message);
  expect(body.errors?.[field]).toBe(message);
}

const post = (input: Partial<PostInput>, user = author) =>
  addPost(api, user, { category: "Tagging", ...input });

const sendPost = async (fields: Record<string, string>) =>
  api.form<PostDetail>(
    "POST",
    "/api/posts",
    {
      fields: { title: "Tagged", category: "Tagging", description: "Words.", ...fields },
      file: { bytes: await pngImage(), filename: "photo.png" },
    },
    { token: author.token },
  );

const put = (user: TestUser | undefined, id: string, body: Record<string, unknown>) =>
  api.put<PostDetail>(`/api/posts/${id}`, body, { token: user?.token });

const rowOf = (id: string) =>
  server.app.deps.db.selectFrom("posts").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
const tagRowsOf = (id: string) =>
  server.app.deps.db
    .selectFrom("post_tags")
    .select("tag")
    .where("post_id", "=", id)
    .orderBy("tag")
    .execute()
    .then((rows) => rows.map((row) => row.tag));

const postCount = () =>
  server.app.deps.db
    .selectFrom("posts")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .executeTakeFirstOrThrow()
    .then((row) => Number(row.n));

const TAG_MESSAGE =
  "Each tag must be 2 to 30 letters or digits, with single hyphens only between them";
const TOO_MANY = "A post can have at most 5 tags";
const META_MESSAGE = "Meta description must be at most 160 characters long";
const URL_MESSAGE = "Canonical URL must be an absolute http:// or https:// address";

describe("bad input", () => {
  it("refuses a new post with bad tags, meta description or canonical URL, naming the field", async () => {
    const before = await postCount();
    const cases: [Record<string, string>, string, string][] = [
      [{ tags: "a" }, "tags", TAG_MESSAGE],
      [{ tags: "x".repeat(31) }, "tags", TAG_MESSAGE],
      [{ tags: "two words" }, "tags", TAG_MESSAGE],
      [{ tags: "-edge" }, "tags", TAG_MESSAGE],
      [{ tags: "edge-" }, "tags", TAG_MESSAGE],
      [{ tags: "double--hyphen" }, "tags", TAG_MESSAGE],
      [{ tags: "c++" }, "tags", TAG_MESSAGE],
      [{ tags: "<script>" }, "tags", TAG_MESSAGE],
      [{ tags: "one,two,three,four,five,six" }, "tags", TOO_MANY],
      [{ metaDescription: "m".repeat(161) }, "metaDescription", META_MESSAGE],
      [{ canonicalUrl: "example.com/post" }, "canonicalUrl", URL_MESSAGE],
      [{ canonicalUrl: "/posts/1" }, "canonicalUrl", URL_MESSAGE],
      [{ canonicalUrl: "javascript:alert(1)" }, "canonicalUrl", URL_MESSAGE],
      [{ canonicalUrl: "ftp://example.com/a" }, "canonicalUrl", URL_MESSAGE],
    ];
    for (const [fields, field, message] of cases) {
      expectError(await sendPost(fields), 400, field, message);
    }
    expect(await postCount()).toBe(before);
  });

  it("refuses an edit with bad fields and changes nothing, tags included", async () => {
    const created = await post({ tags: "kept" });
    const before = await rowOf(created._id);
    const cases: [Record<string, unknown>, string, string][] = [
      [{ tags: ["ok", "x"] }, "tags", TAG_MESSAGE],
      [{ tags: ["a1", "b2", "c3", "d4", "e5", "f6"] }, "tags", TOO_MANY],
      [{ tags: [1, 2] }, "tags", TAG_MESSAGE],
      [{ tags: { a: 1 } }, "tags", TAG_MESSAGE],
      [{ tags: Array.from({ length: 21 }, (_, i) => `tag${String(i)}`) }, "tags", TAG_MESSAGE],
      [{ metaDescription: "m".repeat(161) }, "metaDescription", META_MESSAGE],
      [{ canonicalUrl: "not a url" }, "canonicalUrl", URL_MESSAGE],
      [{ tags: ["fine"], title: "" }, "title", "Title is required"],
    ];
    for (const [body, field, message] of cases) {
      expectError(await put(author, created._id, body), 400, field, message);
    }
    expect(await rowOf(created._id)).toEqual(before);
    expect(await tagRowsOf(created._id)).toEqual(["kept"]);
  });

  it("lets only the author change a post's tags: 401, 403, 404", async () => {
    const created = await post({ tags: "mine" });
    expect((await put(undefined, created._id, { tags: ["theirs"] })).status).toBe(401);
    expect((await put(other, created._id, { tags: ["theirs"] })).status).toBe(403);
    const draft = await post({ tags: "hidden", status: "draft" });
    expect((await put(other, draft._id, { tags: ["theirs"] })).status).toBe(404);
    expect(await tagRowsOf(created._id)).toEqual(["mine"]);
    expect(await tagRowsOf(draft._id)).toEqual(["hidden"]);
  });

  it("answers a pageNumber that is not a number with 400 on /api/tags", async () => {
    expect((await api.get("/api/tags?pageNumber=0")).status).toBe(400);
    expect((await api.get("/api/tags?pageNumber=x")).status).toBe(400);
  });
});

describe("tags", () => {
  it("stores tags lowercase, composed, merged, in the writer's order, from a form or JSON", async () => {
    const created = await post({ tags: " Rust , WEB-dev,rust,,  Café " });
    expect(created.tags).toEqual(["rust", "web-dev", "café"]);
    expect(await tagRowsOf(created._id)).toEqual(["café", "rust", "web-dev"]);
    // Scripts written with combining marks are letters too.
    const marked = await put(author, created._id, { tags: ["हिन्दी", "ภาษาไทย"] });
    expect(marked.status, marked.text).toBe(200);
    expect(marked.body.tags).toEqual(["हिन्दी", "ภาษาไทย"]);
    // Any script, digits; a decomposed é is stored composed.
    const edited = await put(author, created._id, { tags: ["東京", "2026", "Cafe\u0301"] });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body.tags).toEqual(["東京", "2026", "café"]);
    // Everything else is kept by an edit that names tags alone.
    expect(edited.body.title).toBe(created.title);
    expect(edited.body.description).toBe(created.description);
    expect(edited.body.category).toBe("Tagging");
    // An empty list clears them.
    const cleared = await put(author, created._id, { tags: [] });
    expect(cleared.body.tags).toEqual([]);
    expect(await tagRowsOf(created._id)).toEqual([]);
  });

  it("keeps a post's tags through SPEC's edit, which does not name them", async () => {
    const created = await post({ tags: "stays" });
    const edited = await put(author, created._id, {
      title: "New title",
      category: "Tagging",
      description: "New words.",
    });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body.tags).toEqual(["stays"]);
  });

  it("lists a tag's published posts in any case, counts them in /api/tags, and leaves out drafts", async () => {
    const first = await post({ title: "First gardening", tags: "gardening,soil" });
    const second = await post({ title: "Second gardening", tags: "Gardening" });
    await post({ title: "Draft gardening", tags: "gardening,drafts-only", status: "draft" });
    const listed = await api.get<PostSummary[]>("/api/posts?tag=GARDENING&pageNumber=1");
    expect(listed.status).toBe(200);
    expect(listed.body.map((p) => p._id)).toEqual([second._id, first._id]);
    const streamed = await api.get<PostSummary[]>("/api/posts?tag=soil");
    expect(streamed.body.map((p) => p._id)).toEqual([first._id]);
    expect((await api.get<PostSummary[]>("/api/posts?tag=nothing&pageNumber=1")).body).toEqual([]);

    const tags = await api.get<{ name: string; postsCount: number }[]>("/api/tags");
    expect(tags.status).toBe(200);
    expect(tags.body[0]).toEqual({ name: "gardening", postsCount: 2 });
    expect(tags.body).toContainEqual({ name: "soil", postsCount: 1 });
    expect(tags.body.map((t) => t.name)).not.toContain("drafts-only");
    expect((await api.get<unknown[]>("/api/tags?pageNumber=99")).body).toEqual([]);

    // A change shows at once, in the kept answers too.
    await put(author, second._id, { tags: ["soil"] });
    const after = await api.get<PostSummary[]>("/api/posts?tag=gardening&pageNumber=1");
    expect(after.body.map((p) => p._id)).toEqual([first._id]);
    const counted = await api.get<{ name: string; postsCount: number }[]>("/api/tags");
    expect(counted.body).toContainEqual({ name: "soil", postsCount: 2 });
  });

  it("is found by search, and no longer once the post drops it", async () => {
    const found = async (q: string) =>
      (await api.get<{ posts: { _id: string }[] }>(`/api/search?q=${q}`)).body.posts.map(
        (p) => p._id,
      );
    const created = await post({
      title: "Airships",
      description: "Slow flight.",
      tags: "zeppelin",
    });
    await post({ title: "Hidden airship", tags: "zeppelin", status: "draft" });
    expect(await found("zeppelin")).toEqual([created._id]);
    await put(author, created._id, { tags: ["blimp"] });
    expect(await found("zeppelin")).toEqual([]);
    expect(await found("blimp")).toEqual([created._id]);
  });

  it("goes with its post when the post is deleted", async () => {
    const created = await post({ tags: "fleeting" });
    const removed = await api.delete(`/api/posts/${created._id}`, { token: author.token });
    expect(removed.status).toBe(200);
    expect(await tagRowsOf(created._id)).toEqual([]);
  });
});

describe("meta description and canonical URL", () => {
  it("stores, shows, keeps and clears them", async () => {
    const created = await post({
      metaDescription: "  A short summary for search engines.  ",
      canonicalUrl: "https://example.org/first/appeared",
    });
    expect(created.metaDescription).toBe("A short summary for search engines.");
    expect(created.canonicalUrl).toBe("https://example.org/first/appeared");
    const plain = await post({});
    expect(plain.metaDescription).toBeNull();
    expect(plain.canonicalUrl).toBeNull();

    const kept = await put(author, created._id, { tags: ["seo"] });
    expect(kept.body.metaDescription).toBe("A short summary for search engines.");
    const cleared = await put(author, created._id, { metaDescription: "", canonicalUrl: "" });
    expect(cleared.status, cleared.text).toBe(200);
    expect(cleared.body.metaDescription).toBeNull();
    expect(cleared.body.canonicalUrl).toBeNull();
    expect(cleared.body.tags).toEqual(["seo"]);
  });
});

describe("posts written before tags (migration 016)", () => {
  it("have no tags, no meta description and no canonical URL, and take them; 016 goes down and up", async () => {
    const own = await startTestServer();
    try {
      const ownApi = client(own.url);
      const writer = await buildUser(own, ownApi);
      const { db } = own.app.deps;
      await migrateTo(db, "015-body-image-bytes");
      const id = newId();
      // A row of the table as it was: without the columns 016 adds.
      await db
        .insertInto("posts")
        .values({
          id,
          user_id: writer.id,
          title: "Written long ago",
          description: "Old words.",
          category: "Archive",
          image_key: "legacy/none.webp",
          body_format: "markdown",
          html: "<p>Old words.</p>",
          excerpt: "Old words.",
          body_text: "Old words.",
          reading_minutes: 1,
          status: "published",
          publish_at: null,
          published_at: "2025-01-01T00:00:00.000Z",
          created_at: "2025-01-01T00:00:00.000Z",
          updated_at: "2025-01-01T00:00:00.000Z",
        } as never)
        .execute();
      await migrateToLatest(db);
      const read = await ownApi.get<PostDetail>(`/api/posts/${id}`);
      expect(read.status, read.text).toBe(200);
      expect(read.body.tags).toEqual([]);
      expect(read.body.metaDescription).toBeNull();
      expect(read.body.canonicalUrl).toBeNull();
      const tagged = await ownApi.put<PostDetail>(
        `/api/posts/${id}`,
        { tags: ["archive"] },
        { token: writer.token },
      );
      expect(tagged.status, tagged.text).toBe(200);
      expect(tagged.body.tags).toEqual(["archive"]);
      expect(tagged.body.title).toBe("Written long ago");
      // Down (the tags go) and up again: the post is as it was before them.
      await migrateTo(db, "015-body-image-bytes");
      await migrateToLatest(db);
      expect((await ownApi.get<PostDetail>(`/api/posts/${id}`)).body.tags).toEqual([]);
    } finally {
      await own.close();
    }
  });
});
