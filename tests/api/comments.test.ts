import { beforeAll, describe, expect, it } from "vitest";
import { addPost, type PostDetail } from "../support/post-fixtures.js";
import { type TestUser } from "../support/factories.js";
import { openTestSite } from "../support/site.js";

const {
  api,
  admin,
  users: { author, other },
} = await openTestSite({ users: ["author", "other"], categories: ["General"] });

let post: PostDetail;

interface Comment {
  _id: string;
  text: string;
  postId: string;
  userName: string;
  user: { _id: string; username: string };
  message?: string;
}

const UNKNOWN = "00000000-0000-4000-8000-000000000000";

beforeAll(async () => {
  post = await addPost(api, author, { category: "General" });
});

const comment = (user: TestUser, text = "Nice post!") =>
  api.post<Comment>("/api/comments", { text, postId: post._id }, { token: user.token });

describe("POST /api/comments", () => {
  it("refuses anonymous callers with 401", async () => {
    expect((await api.post("/api/comments", { text: "Hello", postId: post._id })).status).toBe(401);
  });

  it.each([
    [{ postId: "" }, "text", "Comment must be at least 2 characters long"],
    [{ text: "" }, "text", "Comment must be at least 2 characters long"],
    [{ text: " a " }, "text", "Comment must be at least 2 characters long"],
    [{ text: "x".repeat(2001) }, "text", "Comment must be at most 2000 characters long"],
  ])("refuses %j with 400 on %s", async (body, field, message) => {
    const reply = await api.post(
      "/api/comments",
      { postId: post._id, ...body },
      { token: other.token },
    );
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ message, errors: { [field]: message } });
  });

  it("answers 404 for a post that does not exist", async () => {
    for (const postId of [UNKNOWN, "abc"]) {
      const reply = await api.post(
        "/api/comments",
        { text: "Hello", postId },
        { token: other.token },
      );
      expect(reply.status).toBe(404);
      expect(reply.body).toEqual({ message: "Post not found" });
    }
  });

  it("adds a comment with its author, and shows it on the post", async () => {
    const reply = await comment(other, "<img src=x onerror=alert(1)> '; DROP TABLE comments; --");
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({
      text: "<img src=x onerror=alert(1)> '; DROP TABLE comments; --",
      postId: post._id,
      userName: other.username,
      user: { _id: other.id, username: other.username },
    });
    const detail = await api.get<{ comments: Comment[]; commentsCount: number }>(
      `/api/posts/${post._id}`,
    );
    expect(detail.body.commentsCount).toBe(1);
    expect(detail.body.comments.map((c) => c._id)).toEqual([reply.body._id]);
  });
});

describe("PUT /api/comments/:id", () => {
  it("refuses anonymous callers, unknown ids, other users and admins", async () => {
    const { body } = await comment(other);
    expect((await api.put(`/api/comments/${body._id}`, { text: "Edited" })).status).toBe(401);
    for (const id of [UNKNOWN, "abc"]) {
      const reply = await api.put(
        `/api/comments/${id}`,
        { text: "Edited" },
        { token: other.token },
      );
      expect(reply.status).toBe(404);
    }
    for (const intruder of [author, admin]) {
      const reply = await api.put(
        `/api/comments/${body._id}`,
        { text: "Edited" },
        { token: intruder.token },
      );
      expect(reply.status).toBe(403);
    }
  });

  it("refuses an empty text with 'comment is required'", async () => {
    const { body } = await comment(other);
    for (const payload of [{}, { text: "" }, { text: "  " }]) {
      const reply = await api.put(`/api/comments/${body._id}`, payload, { token: other.token });
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual({
        message: "comment is required",
        errors: { text: "comment is required" },
      });
    }
  });

  it("lets the author edit, answering the comment and a message", async () => {
    const { body } = await comment(other);
    const reply = await api.put<Comment>(
      `/api/comments/${body._id}`,
      { text: "Edited" },
      { token: other.token },
    );
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      _id: body._id,
      text: "Edited",
      message: "Comment updated successfully",
    });
  });
});

describe("DELETE /api/comments/:id", () => {
  it("refuses anonymous callers, unknown ids and other users", async () => {
    const { body } = await comment(other);
    expect((await api.delete(`/api/comments/${body._id}`)).status).toBe(401);
    expect((await api.delete(`/api/comments/${UNKNOWN}`, { token: other.token })).status).toBe(404);
    expect((await api.delete(`/api/comments/${body._id}`, { token: author.token })).status).toBe(
      403,
    );
  });

  it("lets the author and an admin delete", async () => {
    for (const remover of [other, admin]) {
      const { body } = await comment(other);
      const reply = await api.delete(`/api/comments/${body._id}`, { token: remover.token });
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({ commentId: body._id, message: "Comment has been deleted" });
      expect((await api.delete(`/api/comments/${body._id}`, { token: remover.token })).status).toBe(
        404,
      );
    }
  });
});

describe("GET /api/comments", () => {
  it("is for admins only", async () => {
    expect((await api.get("/api/comments")).status).toBe(401);
    expect((await api.get("/api/comments", { token: other.token })).status).toBe(403);
  });

  it("lists every comment newest first with its user and post id", async () => {
    const first = await comment(author, "First of two");
    const second = await comment(other, "Second of two");
    const reply = await api.get<Comment[]>("/api/comments", { token: admin.token });
    expect(reply.status).toBe(200);
    const ids = reply.body.map((c) => c._id);
    expect(ids.indexOf(second.body._id)).toBeLessThan(ids.indexOf(first.body._id));
    expect(reply.body[0]).toMatchObject({ postId: post._id, user: { _id: other.id } });
    expect(reply.text).not.toContain(other.email);
  });
});
