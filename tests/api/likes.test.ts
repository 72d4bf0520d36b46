import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { buildUser } from "../support/factories.js";
import {
  addPost,
  expectPublicUser,
  likeRows,
  type ErrorBody,
  type PostDetail,
} from "../support/post-fixtures.js";
import { openTestSite } from "../support/site.js";

const {
  server,
  api,
  users: { author, reader },
} = await openTestSite({ users: ["author", "reader"], categories: ["Travel"] });

const like = (postId: string, token?: string) =>
  api.put<PostDetail & ErrorBody>(`/api/posts/like/${encodeURIComponent(postId)}`, undefined, {
    token,
  });

const likesCountOf = async (postId: string) =>
  (await api.get<PostDetail>(`/api/posts/${postId}`)).body.likesCount;

describe("PUT /api/posts/like/:id: refusals", () => {
  let post: PostDetail;
  beforeAll(async () => {
    post = await addPost(api, author, { category: "Travel" });
  });

  it("answers 401 without a token or with one that is not a session", async () => {
    for (const token of [undefined, "x".repeat(43)]) {
      const reply = await like(post._id, token);
      expect(reply.status, reply.text).toBe(401);
      expect(typeof reply.body.message).toBe("string");
    }
    expect(await likeRows(server, post._id)).toBe(0);
  });

  it.each([randomUUID(), "abc", "1 OR 1=1", "' OR '1'='1"])("answers 404 for %j", async (id) => {
    const reply = await like(id, reader.token);
    expect(reply.status, reply.text).toBe(404);
    expect(reply.body).toEqual({ message: "Post not found" });
  });
});

describe("PUT /api/posts/like/:id", () => {
  it("likes on the first call and unlikes on the second", async () => {
    const post = await addPost(api, author, { category: "Travel" });

    const liked = await like(post._id, reader.token);
    expect(liked.status, liked.text).toBe(200);
    expect(liked.body).toMatchObject({ _id: post._id, likesCount: 1 });
    expect(liked.body.likes).toEqual([
      {
        _id: reader.id,
        id: reader.id,
        username: reader.username,
        profilePhoto: { url: server.app.deps.site.defaultAvatarUrl },
      },
    ]);
    liked.body.likes.forEach(expectPublicUser);
    expect(liked.text).not.toContain(reader.email);
    expect(await likeRows(server, post._id, reader.id)).toBe(1);
    expect(await likesCountOf(post._id)).toBe(1);

    const unliked = await like(post._id, reader.token);
    expect(unliked.status, unliked.text).toBe(200);
    expect(unliked.body).toMatchObject({ _id: post._id, likesCount: 0, likes: [] });
    expect(await likeRows(server, post._id)).toBe(0);
    expect(await likesCountOf(post._id)).toBe(0);
  });

  it("keeps each user's like apart", async () => {
    const post = await addPost(api, author, { category: "Travel" });
    await like(post._id, reader.token);
    const both = await like(post._id, author.token);
    expect(both.body.likes.map((user) => user._id).sort()).toEqual([reader.id, author.id].sort());
    const one = await like(post._id, reader.token);
    expect(one.body.likes.map((user) => user._id)).toEqual([author.id]);
    expect(one.body.likesCount).toBe(1);
  });

  it("counts 20 users who like the same post at once exactly 20 times", async () => {
    const post = await addPost(api, author, { category: "Travel" });
    const users = await Promise.all(Array.from({ length: 20 }, () => buildUser(server, api)));
    const replies = await Promise.all(users.map((user) => like(post._id, user.token)));
    expect(replies.map((reply) => reply.status)).toEqual(replies.map(() => 200));
    expect(await likeRows(server, post._id)).toBe(20);
    const read = await api.get<PostDetail>(`/api/posts/${post._id}`);
    expect(read.body.likesCount).toBe(20);
    expect(read.body.likes.map((user) => user._id).sort()).toEqual(
      users.map((user) => user.id).sort(),
    );
  });

  it("never keeps more than one like when one user toggles 10 times at once", async () => {
    const post = await addPost(api, author, { category: "Travel" });
    const replies = await Promise.all(
      Array.from({ length: 10 }, () => like(post._id, reader.token)),
    );
    expect(replies.map((reply) => reply.status)).toEqual(replies.map(() => 200));
    const rows = await likeRows(server, post._id, reader.id);
    expect([0, 1]).toContain(rows);
    expect(await likeRows(server, post._id)).toBe(rows);
    expect(await likesCountOf(post._id)).toBe(rows);
  });

  it("answers 200 or 404, never 5xx, to likes racing the post's deletion", async () => {
    const post = await addPost(api, author, { category: "Travel" });
    const users = await Promise.all(Array.from({ length: 8 }, () => buildUser(server, api)));
    const [deleted, ...likes] = await Promise.all([
      api.delete(`/api/posts/${post._id}`, { token: author.token }),
      ...users.map((user) => like(post._id, user.token)),
    ]);
    expect(deleted.status).toBe(200);
    for (const reply of likes) expect([200, 404], reply.text).toContain(reply.status);
    expect(await likeRows(server, post._id)).toBe(0);
  });
});
