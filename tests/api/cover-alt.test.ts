import { describe, expect, it } from "vitest";
import { IMAGE_ALT_MAX } from "../../contract/limits.js";
import { pngImage } from "../support/images.js";
import {
  addPost,
  postRows,
  type ErrorBody,
  type PostDetail,
  type PostSummary,
} from "../support/post-fixtures.js";
import { openTestSite } from "../support/site.js";

// A cover image's description for readers who cannot see it (issue 20.8): the writer's, when given.

const {
  server,
  api,
  users: { author, other },
} = await openTestSite({ users: ["author", "other"], categories: ["Harbours"] });

const TOO_LONG = "a".repeat(IMAGE_ALT_MAX + 1);
const MESSAGE = `Image description must be at most ${IMAGE_ALT_MAX} characters long`;

describe("a cover image's description", () => {
  it("is refused over its limit, on create and on edit, and nothing is stored", async () => {
    const before = await postRows(server);
    const created = await api.form<ErrorBody>(
      "POST",
      "/api/posts",
      {
        fields: { title: "Long", category: "Harbours", description: "Words.", imageAlt: TOO_LONG },
        file: { bytes: await pngImage(), filename: "photo.png" },
      },
      { token: author.token },
    );
    expect(created.status, created.text).toBe(400);
    expect(created.body.errors).toMatchObject({ imageAlt: MESSAGE });
    expect(await postRows(server)).toBe(before);

    const post = await addPost(api, author, { category: "Harbours", imageAlt: "Boats at dusk" });
    const edited = await api.put<ErrorBody>(
      `/api/posts/${post._id}`,
      { title: "T", category: "Harbours", description: "D", imageAlt: TOO_LONG },
      { token: author.token },
    );
    expect(edited.status, edited.text).toBe(400);
    expect(edited.body.errors).toMatchObject({ imageAlt: MESSAGE });
    const kept = await api.get<PostDetail>(`/api/posts/${post._id}`);
    expect(kept.body.imageAlt).toBe("Boats at dusk");
  });

  it("is not anyone else's to change", async () => {
    const post = await addPost(api, author, { category: "Harbours", imageAlt: "A red lighthouse" });
    const reply = await api.put(
      `/api/posts/${post._id}`,
      { title: "Mine now", category: "Harbours", description: "D", imageAlt: "Nothing" },
      { token: other.token },
    );
    expect(reply.status).toBe(403);
    expect((await api.get<PostDetail>(`/api/posts/${post._id}`)).body.imageAlt).toBe(
      "A red lighthouse",
    );
  });

  it("is null when none is given, shown in lists, kept by an edit without it, cleared by a blank", async () => {
    const plain = await addPost(api, author, { title: "No description", category: "Harbours" });
    expect(plain.imageAlt).toBeNull();

    const post = await addPost(api, author, {
      title: "Described",
      category: "Harbours",
      imageAlt: "  Two gulls on a mooring post  ",
    });
    expect(post.imageAlt).toBe("Two gulls on a mooring post");
    const list = await api.get<PostSummary[]>("/api/posts?pageNumber=1");
    expect(list.body.find((item) => item._id === post._id)?.imageAlt).toBe(
      "Two gulls on a mooring post",
    );

    const fields = { title: "Described", category: "Harbours", description: "Other words." };
    const kept = await api.put<PostDetail>(`/api/posts/${post._id}`, fields, {
      token: author.token,
    });
    expect(kept.status, kept.text).toBe(200);
    expect(kept.body.imageAlt).toBe("Two gulls on a mooring post");

    const cleared = await api.put<PostDetail>(
      `/api/posts/${post._id}`,
      { ...fields, imageAlt: " " },
      { token: author.token },
    );
    expect(cleared.status, cleared.text).toBe(200);
    expect(cleared.body.imageAlt).toBeNull();
  });
});
