import { describe, expect, it } from "vitest";
import { type TestUser } from "../support/factories.js";
import { pngImage } from "../support/images.js";
import {
  addCategory,
  addPost,
  type PostDetail,
  type PublicUser,
} from "../support/post-fixtures.js";
import { openTestSite } from "../support/site.js";

// DESIGN.md 10 "Writing": revisions of a post's text, their list, one of them, and restoring it
// (issue 32, decision 022).

const {
  server,
  api,
  admin,
  users: { author, other },
} = await openTestSite({ users: ["author", "other"], categories: ["Essays", "Notes"] });

interface Listed {
  _id: string;
  createdAt: string;
  editor: PublicUser | null;
  title: string;
}
interface Revision {
  _id: string;
  createdAt: string;
  title: string;
  description: string;
  category: string;
  tags: string[];
}

const edit = (id: string, body: Record<string, unknown>, user = author) =>
  api.put<PostDetail>(`/api/posts/${id}`, body, { token: user.token });
const revisionsOf = (id: string, user: TestUser | undefined, query = "") =>
  api.get<Listed[]>(`/api/posts/${id}/revisions${query}`, { token: user?.token });
const revision = (id: string, revisionId: string, user: TestUser | undefined) =>
  api.get<Revision>(`/api/posts/${id}/revisions/${revisionId}`, { token: user?.token });
const restore = (id: string, revisionId: string, user: TestUser | undefined) =>
  api.post<PostDetail & { message?: string }>(
    `/api/posts/${id}/revisions/${revisionId}/restore`,
    undefined,
    { token: user?.token },
  );
const revisionRows = () =>
  server.app.deps.db
    .selectFrom("post_revisions")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .executeTakeFirstOrThrow()
    .then((row) => Number(row.n));

/** A published post with one edit: its first text is its one revision. */
async function editedPost() {
  const post = await addPost(api, author, {
    title: "First title",
    category: "Essays",
    description: "The first paragraph. A sentence that goes.",
    tags: "drafting",
  });
  const edited = await edit(post._id, {
    title: "Second title",
    category: "Notes",
    description: "The first paragraph.",
  });
  expect(edited.status, edited.text).toBe(200);
  const listed = await revisionsOf(post._id, author);
  expect(listed.status, listed.text).toBe(200);
  const [first] = listed.body;
  if (!first) throw new Error("no revision kept");
  return { post, first };
}

describe("who may see and restore revisions", () => {
  it("401 for anonymous callers, 404 for anyone but the author and admins, 403 on restore by an admin", async () => {
    const { post, first } = await editedPost();
    const before = await revisionRows();
    expect((await revisionsOf(post._id, undefined)).status).toBe(401);
    expect((await revision(post._id, first._id, undefined)).status).toBe(401);
    expect((await restore(post._id, first._id, undefined)).status).toBe(401);
    for (const reply of [
      await revisionsOf(post._id, other),
      await revision(post._id, first._id, other),
      await restore(post._id, first._id, other),
    ]) {
      expect(reply.status, reply.text).toBe(404);
      expect((reply.body as unknown as { message: string }).message).toBe("Post not found");
    }
    // Admins read them (moderation); restoring is an edit, the author's alone (SPEC.md 6).
    expect((await revisionsOf(post._id, admin)).body).toHaveLength(1);
    expect((await revision(post._id, first._id, admin)).status).toBe(200);
    expect((await restore(post._id, first._id, admin)).status).toBe(403);
    expect(await revisionRows()).toBe(before);
    expect((await api.get<PostDetail>(`/api/posts/${post._id}`)).body.title).toBe("Second title");
  });

  it("404 for a revision of another post, an unknown one or a malformed id, and a bad page", async () => {
    const { post, first } = await editedPost();
    const { post: second } = await editedPost();
    for (const reply of [
      await revision(second._id, first._id, author),
      await restore(second._id, first._id, author),
      await revision(post._id, "00000000-0000-4000-8000-000000000000", author),
      await revision(post._id, "not-an-id", author),
    ]) {
      expect(reply.status, reply.text).toBe(404);
      expect((reply.body as unknown as { message: string }).message).toBe("Revision not found");
    }
    expect((await revisionsOf(post._id, author, "?pageNumber=0")).status).toBe(400);
    expect((await api.get<PostDetail>(`/api/posts/${second._id}`)).body.title).toBe("Second title");
  });
});

describe("revisions", () => {
  it("keep the text before each edit of title, body, category or tags; not other changes", async () => {
    const { post, first } = await editedPost();
    expect(first.title).toBe("First title");
    expect(first.editor?._id).toBe(author.id);
    const kept = await revision(post._id, first._id, author);
    expect(kept.body).toEqual({
      _id: first._id,
      createdAt: first.createdAt,
      title: "First title",
      description: "The first paragraph. A sentence that goes.",
      category: "Essays",
      tags: ["drafting"],
    });
    // A change of state, of SEO fields or an edit that changes nothing keeps no revision.
    await edit(post._id, { status: "draft" });
    await edit(post._id, { metaDescription: "Summary." });
    await edit(post._id, {
      title: "Second title",
      category: "Notes",
      description: "The first paragraph.",
    });
    expect((await revisionsOf(post._id, author)).body).toHaveLength(1);
    // A change of tags alone does.
    await edit(post._id, { tags: ["drafting", "essays"] });
    const listed = (await revisionsOf(post._id, author)).body;
    expect(listed.map((r) => r.title)).toEqual(["Second title", "First title"]);
  });

  it("keep one kind of line ending, whichever the writer's form or script sent", async () => {
    // The create form sends CRLF, autosave and scripts LF, an old Mac CR (issue 50, 2).
    const post = await addPost(api, author, {
      category: "Essays",
      description: "First line.\r\n\r\nSecond line.\rThird line.",
    });
    expect(post.description).toBe("First line.\n\nSecond line.\nThird line.");
    const edited = await edit(post._id, {
      title: post.title,
      category: "Essays",
      description: "First line.\n\nSecond line, changed.\r\nThird line.",
    });
    expect(edited.body.description).toBe("First line.\n\nSecond line, changed.\nThird line.");
    const [kept] = (await revisionsOf(post._id, author)).body;
    const stored = await revision(post._id, kept?._id ?? "", author);
    expect(stored.body.description).toBe("First line.\n\nSecond line.\nThird line.");
  });

  it("restore the text, and keep the text they replace as a revision", async () => {
    const { post, first } = await editedPost();
    const restored = await restore(post._id, first._id, author);
    expect(restored.status, restored.text).toBe(200);
    expect(restored.body.title).toBe("First title");
    expect(restored.body.description).toBe("The first paragraph. A sentence that goes.");
    expect(restored.body.category).toBe("Essays");
    expect(restored.body.tags).toEqual(["drafting"]);
    expect(restored.body.html).toContain("A sentence that goes.");
    const listed = (await revisionsOf(post._id, author)).body;
    expect(listed.map((r) => r.title)).toEqual(["Second title", "First title"]);
    const replaced = await revision(post._id, listed[0]?._id ?? "", author);
    expect(replaced.body.category).toBe("Notes");
  });

  it("keep the last 50, newest first, 20 a page", async () => {
    const post = await addPost(api, author, { title: "Version 0", category: "Essays" });
    for (let i = 1; i <= 52; i += 1) {
      const title = `Version ${String(i)}`;
      const reply = await edit(post._id, { title, category: "Essays", description: "Words." });
      expect(reply.status, reply.text).toBe(200);
    }
    const titles: string[] = [];
    for (const page of [1, 2, 3, 4]) {
      const reply = await revisionsOf(post._id, author, `?pageNumber=${String(page)}`);
      titles.push(...reply.body.map((r) => r.title));
      if (page < 3) expect(reply.body).toHaveLength(20);
    }
    expect(titles).toHaveLength(50);
    expect(titles[0]).toBe("Version 51");
    expect(titles.at(-1)).toBe("Version 2");
  });

  it("go with their post", async () => {
    const { post } = await editedPost();
    const removed = await api.delete(`/api/posts/${post._id}`, { token: author.token });
    expect(removed.status).toBe(200);
    const left = await server.app.deps.db
      .selectFrom("post_revisions")
      .select("id")
      .where("post_id", "=", post._id)
      .execute();
    expect(left).toEqual([]);
  });

  it("restore the text but not a category deleted since", async () => {
    await addCategory(api, admin, "Fleeting");
    const post = await addPost(api, author, { title: "In Fleeting", category: "Fleeting" });
    await edit(post._id, { title: "Moved", category: "Essays", description: post.description });
    const [kept] = (await revisionsOf(post._id, author)).body;
    const categories = await api.get<{ _id: string; title: string }[]>("/api/categories");
    const fleeting = categories.body.find((c) => c.title === "Fleeting");
    await api.delete(`/api/categories/${fleeting?._id ?? ""}`, { token: admin.token });
    const restored = await restore(post._id, kept?._id ?? "", author);
    expect(restored.status, restored.text).toBe(200);
    expect(restored.body.title).toBe("In Fleeting");
    expect(restored.body.category).toBe("Essays");
  });

  it("keep the body images they name, so a restore brings them back", async () => {
    const uploaded = await api.form<{ url: string }>(
      "POST",
      "/api/posts/images",
      { file: { bytes: await pngImage(), filename: "map.png" } },
      { token: author.token },
    );
    expect(uploaded.status, uploaded.text).toBe(201);
    const post = await addPost(api, author, {
      title: "With a map",
      category: "Essays",
      description: `Here: ![A map](${uploaded.body.url})`,
    });
    const key = /uploads\/(images\/[^/]+)\//.exec(uploaded.body.url)?.[1] ?? "";
    const imageRow = () =>
      server.app.deps.db
        .selectFrom("body_images")
        .select(["post_id", "released_at"])
        .where("image_key", "=", key)
        .executeTakeFirstOrThrow();
    expect((await imageRow()).post_id).toBe(post._id);
    await edit(post._id, { title: "Without a map", category: "Essays", description: "No map." });
    expect(await imageRow()).toEqual({ post_id: post._id, released_at: null });
    const [kept] = (await revisionsOf(post._id, author)).body;
    const restored = await restore(post._id, kept?._id ?? "", author);
    expect(restored.body.html).toContain(uploaded.body.url.replace(/\/lg\.webp$/, ""));
  });
});
