import { beforeAll, describe, expect, it } from "vitest";
import { type TestUser } from "../support/factories.js";
import { addPost, type PostDetail } from "../support/post-fixtures.js";
import { openTestSite } from "../support/site.js";

/** Replies (DESIGN.md 9): one level of threads under a post's comments. */
const {
  server,
  api,
  admin,
  users: { author, reader },
} = await openTestSite({ users: ["author", "reader"], categories: ["General"] });

let post: PostDetail;
let otherPost: PostDetail;

interface Comment {
  _id: string;
  text: string;
  postId: string;
  parentId: string | null;
  userName: string;
}

const UNKNOWN = "00000000-0000-4000-8000-000000000000";

beforeAll(async () => {
  post = await addPost(api, author, { category: "General" });
  otherPost = await addPost(api, author, { category: "General" });
});

const write = (user: TestUser, body: object) =>
  api.post<Comment>("/api/comments", body, { token: user.token });

async function comment(user: TestUser, text: string, parentId?: string, postId = post._id) {
  const reply = await write(user, { text, postId, ...(parentId ? { parentId } : {}) });
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

async function commentsOf(postId = post._id) {
  const detail = await api.get<{ comments: Comment[]; commentsCount: number }>(
    `/api/posts/${postId}`,
  );
  return detail.body;
}

async function commentRows() {
  const row = await server.app.deps.db
    .selectFrom("comments")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe("POST /api/comments with parentId", () => {
  it("refuses anonymous callers with 401", async () => {
    const parent = await comment(reader, "First!");
    const reply = await api.post("/api/comments", {
      text: "Hello",
      postId: post._id,
      parentId: parent._id,
    });
    expect(reply.status).toBe(401);
  });

  it("refuses a parentId that is not a string with 400 naming the field", async () => {
    const before = await commentRows();
    const reply = await write(reader, { text: "Hello", postId: post._id, parentId: 42 });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({
      message: "parentId must be the id of a comment",
      errors: { parentId: "parentId must be the id of a comment" },
    });
    expect(await commentRows()).toBe(before);
  });

  it("refuses a comment of another post with 400 naming the field, storing nothing", async () => {
    const elsewhere = await comment(reader, "Elsewhere", undefined, otherPost._id);
    const before = await commentRows();
    const reply = await write(reader, { text: "Hello", postId: post._id, parentId: elsewhere._id });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({
      message: "The comment replied to belongs to another post",
      errors: { parentId: "The comment replied to belongs to another post" },
    });
    expect(await commentRows()).toBe(before);
  });

  it("refuses a missing comment with 404 naming the field, storing nothing", async () => {
    const before = await commentRows();
    for (const parentId of [UNKNOWN, "abc"]) {
      const reply = await write(reader, { text: "Hello", postId: post._id, parentId });
      expect(reply.status).toBe(404);
      expect(reply.body).toEqual({
        message: "The comment replied to was not found",
        errors: { parentId: "The comment replied to was not found" },
      });
    }
    expect(await commentRows()).toBe(before);
  });

  it("adds a reply under a top-level comment; comments carry parentId", async () => {
    const parent = await comment(reader, "What a trip");
    expect(parent.parentId).toBeNull();
    const reply = await comment(author, "Thank you!", parent._id);
    expect(reply).toMatchObject({ parentId: parent._id, text: "Thank you!", postId: post._id });
    const { comments } = await commentsOf();
    expect(comments.find((c) => c._id === reply._id)?.parentId).toBe(parent._id);
  });

  it("puts a reply to a reply in its thread, addressed @name", async () => {
    const parent = await comment(reader, "Where was this?");
    const first = await comment(author, "In Portugal", parent._id);
    const second = await comment(reader, "Lovely, thanks", first._id);
    expect(second).toMatchObject({
      parentId: parent._id,
      text: `@${author.username} Lovely, thanks`,
    });
    // Already addressed: not twice.
    const third = await comment(reader, `@${author.username} one more`, first._id);
    expect(third.text).toBe(`@${author.username} one more`);
  });

  it("null parentId is a top-level comment", async () => {
    const top = await comment(reader, "Top level");
    const reply = await write(reader, { text: "Also top", postId: post._id, parentId: null });
    expect(reply.status).toBe(201);
    expect(reply.body.parentId).toBeNull();
    expect(top.parentId).toBeNull();
  });
});

describe("deleting a comment that has replies", () => {
  it("keeps the replies; counts and the admin list count every remaining comment", async () => {
    const fresh = await addPost(api, author, { category: "General" });
    const parent = await comment(reader, "Start of a thread", undefined, fresh._id);
    const replies = [
      await comment(author, "Reply one", parent._id, fresh._id),
      await comment(admin, "Reply two", parent._id, fresh._id),
    ];
    expect((await commentsOf(fresh._id)).commentsCount).toBe(3);

    const deleted = await api.delete(`/api/comments/${parent._id}`, { token: reader.token });
    expect(deleted.status).toBe(200);

    const after = await commentsOf(fresh._id);
    expect(after.commentsCount).toBe(2);
    expect(after.comments.map((c) => [c._id, c.parentId])).toEqual(
      replies.map((r) => [r._id, parent._id]),
    );
    const all = await api.get<Comment[]>("/api/comments", { token: admin.token });
    const ids = all.body.filter((c) => c.postId === fresh._id).map((c) => c._id);
    expect(ids.sort()).toEqual(replies.map((r) => r._id).sort());

    // The thread goes on: a reply to one of its replies joins it.
    const more = await comment(reader, "Still here", replies[0]?._id, fresh._id);
    expect(more.parentId).toBe(parent._id);
  });
});
