import { describe, expect, it } from "vitest";
import { migrateTo, migrateToLatest } from "../../db/connect.js";
import { buildUser, signInAdmin } from "../support/factories.js";
import { client, type Reply } from "../support/http.js";
import { pngImage } from "../support/images.js";
import {
  addCategory,
  addComment,
  addPost,
  toggleLikeOf,
  type ErrorBody,
  type PostDetail,
} from "../support/post-fixtures.js";
import { openTestSite } from "../support/site.js";
import { startTestServer } from "../support/test-server.js";

// DESIGN.md 10 "Writing": a draft may be saved without a cover image; publishing or scheduling
// one still requires it (issue 32, decision 022).

const {
  server,
  api,
  users: { author, other },
} = await openTestSite({ users: ["author", "other"], categories: ["Ideas"] });

/** A post as the API gives it, where `image` may be null (the fixtures' type says it never is). */
type Drafted = Omit<PostDetail, "image"> & { image: { url: string } | null };

const IMAGE_REQUIRED = "image is required";
const inADay = () => new Date(Date.now() + 86_400_000).toISOString();

function expectImageRequired(reply: Reply) {
  expect(reply.status, reply.text).toBe(400);
  const body = reply.body as ErrorBody;
  expect(body.message).toBe(IMAGE_REQUIRED);
  expect(body.errors?.image).toBe(IMAGE_REQUIRED);
}

/** Sends the create-post form without a file. */
const sendWithoutImage = (fields: Record<string, string>, user = author) =>
  api.form<Drafted>(
    "POST",
    "/api/posts",
    { fields: { title: "An idea", category: "Ideas", description: "Jotted down.", ...fields } },
    { token: user.token },
  );

const postCount = () =>
  server.app.deps.db
    .selectFrom("posts")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .executeTakeFirstOrThrow()
    .then((row) => Number(row.n));

const put = (id: string, body: Record<string, unknown>, user = author) =>
  api.put<Drafted>(`/api/posts/${id}`, body, { token: user.token });

describe("bad input", () => {
  it("refuses a post going out without a cover: published (SPEC's form), scheduled", async () => {
    const before = await postCount();
    expectImageRequired(await sendWithoutImage({}));
    expectImageRequired(await sendWithoutImage({ status: "published" }));
    expectImageRequired(await sendWithoutImage({ status: "scheduled", publishAt: inADay() }));
    expect(await postCount()).toBe(before);
  });

  it("refuses to publish or schedule a draft that has no cover, and keeps it a draft", async () => {
    const draft = await sendWithoutImage({ status: "draft" });
    expect(draft.status, draft.text).toBe(201);
    expectImageRequired(await put(draft.body._id, { status: "published" }));
    expectImageRequired(await put(draft.body._id, { status: "scheduled", publishAt: inADay() }));
    const edit = { title: "Still", category: "Ideas", description: "Words.", status: "published" };
    expectImageRequired(await put(draft.body._id, edit));
    const read = await api.get<Drafted>(`/api/posts/${draft.body._id}`, { token: author.token });
    expect(read.body.status).toBe("draft");
    expect(read.body.title).toBe("An idea");
    expect((await api.get(`/api/posts/${draft.body._id}`)).status).toBe(404);
  });

  it("lets nobody but the author give a draft its cover", async () => {
    const draft = await sendWithoutImage({ status: "draft" });
    const reply = await api.form(
      "PUT",
      `/api/posts/post-image/${draft.body._id}`,
      { file: { bytes: await pngImage(), filename: "cover.png" } },
      { token: other.token },
    );
    expect(reply.status).toBe(404);
  });
});

describe("a draft without a cover", () => {
  it("is saved, listed for its author with a null image, and edited", async () => {
    const saved = await sendWithoutImage({ status: "draft", tags: "someday" });
    expect(saved.status, saved.text).toBe(201);
    expect(saved.body.image).toBeNull();
    expect(saved.body.status).toBe("draft");
    const own = await api.get<Drafted[]>("/api/users/me/posts?status=draft", {
      token: author.token,
    });
    const listed = own.body.find((post) => post._id === saved.body._id);
    expect(listed?.image).toBeNull();
    const edited = await put(saved.body._id, { title: "A better idea", tags: ["someday"] });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body.image).toBeNull();
  });

  it("gets its cover, then goes out", async () => {
    const saved = await sendWithoutImage({ status: "draft" });
    const covered = await api.form<Drafted>(
      "PUT",
      `/api/posts/post-image/${saved.body._id}`,
      { file: { bytes: await pngImage(), filename: "cover.png" } },
      { token: author.token },
    );
    expect(covered.status, covered.text).toBe(200);
    expect(covered.body.image?.url).toMatch(/\/lg\.webp$/);
    const published = await put(saved.body._id, { status: "published" });
    expect(published.status, published.text).toBe(200);
    expect(published.body.status).toBe("published");
    expect((await api.get(`/api/posts/${saved.body._id}`)).status).toBe(200);
  });

  it("is deleted like any post", async () => {
    const saved = await sendWithoutImage({ status: "draft" });
    const removed = await api.delete(`/api/posts/${saved.body._id}`, { token: author.token });
    expect(removed.status, removed.text).toBe(200);
    expect((await api.get(`/api/posts/${saved.body._id}`, { token: author.token })).status).toBe(
      404,
    );
  });
});

describe("POST /api/posts as JSON (issue 34)", () => {
  const postJson = (body: unknown, token = author.token) =>
    api.post<Drafted & { errors?: Record<string, string> }>("/api/posts", body, { token });

  it("refuses signed-out callers, and names only what is missing or wrong", async () => {
    expect((await api.post("/api/posts", { title: "x" })).status).toBe(401);
    const published = await postJson({
      title: "From a script",
      category: "Ideas",
      description: "Words",
    });
    expect(published.status).toBe(400);
    expect(published.body.errors).toEqual({ image: IMAGE_REQUIRED });
    const partial = await postJson({ title: "Only a title", status: "draft", tags: 42 });
    expect(partial.status).toBe(400);
    expect(Object.keys(partial.body.errors ?? {}).sort()).toEqual(["category", "description"]);
  });

  it("takes a draft without a cover, with its tags as a list", async () => {
    const reply = await postJson({
      title: "Drafted by a script",
      category: "Ideas",
      description: "Words",
      status: "draft",
      tags: ["scripts", "Automation"],
    });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.body).toMatchObject({
      title: "Drafted by a script",
      status: "draft",
      image: null,
      tags: ["scripts", "automation"],
    });
  });
});

describe("migration 019 (covers optional)", () => {
  it("keeps every post, its likes, comments, tags and search through down and up; down waits for covers", async () => {
    const own = await startTestServer();
    try {
      const ownApi = client(own.url);
      const admin = await signInAdmin(own, ownApi);
      const writer = await buildUser(own, ownApi);
      await addCategory(ownApi, admin, "Ideas");
      const post = await addPost(ownApi, writer, {
        title: "Quokka sightings",
        category: "Ideas",
        tags: "marsupials",
      });
      await addComment(ownApi, admin, post._id, "Lovely quokkas.");
      await toggleLikeOf(ownApi, admin, post._id);
      const { db } = own.app.deps;
      const found = async (q: string) =>
        (await ownApi.get<{ total: number }>(`/api/search?q=${q}`)).body.total;

      await migrateTo(db, "018-post-revisions");
      await migrateToLatest(db);
      const read = await ownApi.get<PostDetail>(`/api/posts/${post._id}`);
      expect(read.body.comments).toHaveLength(1);
      expect(read.body.likes).toHaveLength(1);
      expect(read.body.tags).toEqual(["marsupials"]);
      expect(await found("quokka")).toBe(1);
      expect(await found("marsupials")).toBe(1);
      // The remade table's triggers and foreign keys still work.
      await ownApi.put(`/api/posts/${post._id}`, { tags: ["wombats"] }, { token: writer.token });
      expect(await found("wombats")).toBe(1);

      // With a post that has no cover, going back is refused with the reason, and nothing changes.
      const idea = await ownApi.form<Drafted>(
        "POST",
        "/api/posts",
        {
          fields: { title: "Coverless", category: "Ideas", description: "Soon.", status: "draft" },
        },
        { token: writer.token },
      );
      expect(idea.status, idea.text).toBe(201);
      await expect(migrateTo(db, "018-post-revisions")).rejects.toThrow(/no cover image/);
      // Migration 019 refused before it changed anything; the later ones went down before it
      // (Kysely's migrator runs SQLite's one by one), and come back up as the server would.
      await migrateToLatest(db);
      expect(
        (await ownApi.get(`/api/posts/${idea.body._id}`, { token: writer.token })).status,
      ).toBe(200);
      const removed = await ownApi.delete(`/api/posts/${post._id}`, { token: writer.token });
      expect(removed.status).toBe(200);
      const comments = await db.selectFrom("comments").select("id").execute();
      expect(comments).toEqual([]);
    } finally {
      await own.close();
    }
  });
});
