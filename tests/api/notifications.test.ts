import { beforeAll, describe, expect, it } from "vitest";
import { notificationsPage } from "../../core/notifications/notifications-service.js";
import { buildUser, type TestUser } from "../support/factories.js";
import {
  addComment,
  addPost,
  expectPublicUser,
  toggleLikeOf,
  type ErrorBody,
} from "../support/post-fixtures.js";
import { openTestSite } from "../support/site.js";

/** Notifications (DESIGN.md 9, "Reading"; decision 016). */
const { server, api } = await openTestSite({ categories: ["Travel"] });

interface Notification {
  _id: string;
  kind: "comment" | "reply" | "like" | "follow";
  actor: { _id: string; username: string };
  postId?: string;
  commentId?: string;
  read: boolean;
  createdAt: string;
}

interface Inbox {
  unread: number;
  notifications: Notification[];
}

const inbox = (token?: string, query = "") =>
  api.get<Inbox & ErrorBody>(`/api/notifications${query}`, { token });

const markRead = (body: unknown, token?: string) =>
  api.post<ErrorBody>("/api/notifications/read", body, { token });

const reply = (who: TestUser, postId: string, parentId: string, text: string) =>
  api.post<{ _id: string }>("/api/comments", { postId, parentId, text }, { token: who.token });

const follow = (id: string, who: TestUser) =>
  api.put(`/api/users/follow/${id}`, undefined, { token: who.token });

/** What each notification says, oldest first: "kind by actor". */
async function told(who: TestUser) {
  const { body } = await inbox(who.token);
  return body.notifications.map((n) => `${n.kind} by ${n.actor.username}`).reverse();
}

async function notificationRows(userId: string) {
  const row = await server.app.deps.db
    .selectFrom("notifications")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .where((eb) => eb.or([eb("recipient_id", "=", userId), eb("actor_id", "=", userId)]))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe("refusals", () => {
  let author: TestUser;
  let reader: TestUser;
  beforeAll(async () => {
    author = await buildUser(server, api);
    reader = await buildUser(server, api);
  });

  it("answers 401 to reading or marking without a session", async () => {
    for (const token of [undefined, "x".repeat(43)]) {
      expect((await inbox(token)).status).toBe(401);
      expect((await markRead({}, token)).status).toBe(401);
    }
  });

  it("answers 400 to a bad page or a bad list of ids, marking nothing", async () => {
    const post = await addPost(api, author, { category: "Travel" });
    await addComment(api, reader, post._id, "Hello");
    expect((await inbox(author.token, "?pageNumber=-1")).status).toBe(400);
    for (const body of [{ ids: "all" }, { ids: [1, 2] }, { ids: [{}] }, [], "ids"]) {
      const answer = await api.raw("POST", "/api/notifications/read", JSON.stringify(body), {
        token: author.token,
        headers: { "content-type": "application/json" },
      });
      expect(answer.status, `${JSON.stringify(body)}: ${answer.text}`).toBe(400);
    }
    const tooMany = await markRead({ ids: Array.from({ length: 101 }, () => "x") }, author.token);
    expect(tooMany.status).toBe(400);
    expect((await inbox(author.token)).body.unread).toBe(1);
  });

  it("never shows or marks another person's notifications", async () => {
    const post = await addPost(api, author, { category: "Travel" });
    await addComment(api, reader, post._id, "For the author");
    const mine = (await inbox(author.token)).body;
    const ids = mine.notifications.map((n) => n._id);
    expect(ids.length).toBeGreaterThan(0);

    // The reader sees none of them, and naming them (or marking all) marks none.
    expect((await inbox(reader.token)).body).toEqual({ unread: 0, notifications: [] });
    expect((await markRead({ ids }, reader.token)).status).toBe(204);
    expect((await markRead(undefined, reader.token)).status).toBe(204);
    expect((await inbox(author.token)).body.unread).toBe(mine.unread);
  });
});

describe("what people are told", () => {
  it("tells a post's author of a comment, with its shape, and nobody of their own", async () => {
    const author = await buildUser(server, api);
    const reader = await buildUser(server, api);
    const post = await addPost(api, author, { category: "Travel" });
    await addComment(api, author, post._id, "My own remark");
    const comment = await addComment(api, reader, post._id, "Nice");

    const { body, status, text } = await inbox(author.token);
    expect(status, text).toBe(200);
    expect(body.unread).toBe(1);
    const [only] = body.notifications;
    expect(Object.keys(only ?? {}).sort()).toEqual([
      "_id",
      "actor",
      "commentId",
      "createdAt",
      "kind",
      "postId",
      "read",
    ]);
    expect(only).toMatchObject({
      kind: "comment",
      postId: post._id,
      commentId: comment._id,
      read: false,
    });
    expectPublicUser(only?.actor);
    expect(only?.actor._id).toBe(reader.id);
    expect(text).not.toContain(reader.email);
    expect(await told(reader)).toEqual([]);
  });

  it("tells the person answered of a reply, and the post's author of it once", async () => {
    const author = await buildUser(server, api);
    const first = await buildUser(server, api);
    const second = await buildUser(server, api);
    const post = await addPost(api, author, { category: "Travel" });
    const opening = await addComment(api, first, post._id, "First");
    const authorsOwn = await addComment(api, author, post._id, "The author speaks");

    // A third person answers the first commenter: a reply to them, a comment to the author.
    expect((await reply(second, post._id, opening._id, "Agreed")).status).toBe(201);
    // The author answers the first commenter: a reply to them alone.
    expect((await reply(author, post._id, opening._id, "Thanks")).status).toBe(201);
    // Someone answers the author's own comment: the author hears of the reply, not twice.
    expect((await reply(second, post._id, authorsOwn._id, "Indeed")).status).toBe(201);
    // The first commenter answers themselves: the author hears of a comment.
    expect((await reply(first, post._id, opening._id, "Also")).status).toBe(201);

    expect(await told(author)).toEqual([
      `comment by ${first.username}`,
      `comment by ${second.username}`,
      `reply by ${second.username}`,
      `comment by ${first.username}`,
    ]);
    expect(await told(first)).toEqual([
      `reply by ${second.username}`,
      `reply by ${author.username}`,
    ]);
    expect(await told(second)).toEqual([]);
  });

  it("tells of a like once; an unlike takes back an unread one", async () => {
    const author = await buildUser(server, api);
    const reader = await buildUser(server, api);
    const post = await addPost(api, author, { category: "Travel" });
    await toggleLikeOf(api, author, post._id);
    expect(await told(author)).toEqual([]);

    await toggleLikeOf(api, reader, post._id);
    const liked = (await inbox(author.token)).body.notifications;
    expect(liked).toMatchObject([{ kind: "like", postId: post._id, read: false }]);
    expect(liked[0]).not.toHaveProperty("commentId");
    await toggleLikeOf(api, reader, post._id);
    expect(await told(author)).toEqual([]);

    // Seen, it stays; liking again does not ring the bell a second time.
    await toggleLikeOf(api, reader, post._id);
    expect((await markRead({}, author.token)).status).toBe(204);
    await toggleLikeOf(api, reader, post._id);
    await toggleLikeOf(api, reader, post._id);
    expect(await told(author)).toEqual([`like by ${reader.username}`]);
    expect((await inbox(author.token)).body.unread).toBe(0);
  });

  it("tells of a new follower; an unfollow takes it back", async () => {
    const writer = await buildUser(server, api);
    const fan = await buildUser(server, api);
    await follow(writer.id, fan);
    const [followed] = (await inbox(writer.token)).body.notifications;
    expect(followed).toMatchObject({ kind: "follow", read: false });
    expect(followed).not.toHaveProperty("postId");
    await follow(writer.id, fan);
    expect(await told(writer)).toEqual([]);
  });

  it("lists newest first in pages of 6 and marks the ones named, or all", async () => {
    const author = await buildUser(server, api);
    const post = await addPost(api, author, { category: "Travel" });
    const readers = [];
    for (let i = 0; i < 8; i += 1) readers.push(await buildUser(server, api));
    for (const reader of readers) await addComment(api, reader, post._id, "Hi");

    const page1 = (await inbox(author.token)).body;
    expect(page1.unread).toBe(8);
    expect(page1.notifications.map((n) => n.actor._id)).toEqual(
      readers
        .map((r) => r.id)
        .reverse()
        .slice(0, 6),
    );
    const page2 = (await inbox(author.token, "?pageNumber=2")).body;
    expect(page2.notifications).toHaveLength(2);

    const shown = page1.notifications.slice(0, 2).map((n) => n._id);
    expect((await markRead({ ids: [...shown, "not-an-id"] }, author.token)).status).toBe(204);
    const after = (await inbox(author.token)).body;
    expect(after.unread).toBe(6);
    expect(after.notifications.filter((n) => n.read).map((n) => n._id)).toEqual(shown);

    expect((await markRead({}, author.token)).status).toBe(204);
    expect((await inbox(author.token)).body.unread).toBe(0);
  });
});

describe("a post its author takes back to drafts", () => {
  const edit = (author: TestUser, post: { _id: string }, title: string, status: string) =>
    api.put(
      `/api/posts/${post._id}`,
      { title, category: "Travel", description: "Some words about it.", status },
      { token: author.token },
    );

  it("is named to nobody else: what they were told of it is held back until it is published again", async () => {
    const author = await buildUser(server, api);
    const reader = await buildUser(server, api);
    const other = await buildUser(server, api);
    const post = await addPost(api, author, { category: "Travel" });
    const opening = await addComment(api, reader, post._id, "Interesting");
    expect((await reply(other, post._id, opening._id, "Agreed")).status).toBe(201);
    expect(await told(reader)).toEqual([`reply by ${other.username}`]);

    const drafted = await edit(author, post, "Secret plans", "draft");
    expect(drafted.status, drafted.text).toBe(200);
    // The author may still answer on the draft; the reader is not told of it either.
    expect((await reply(author, post._id, opening._id, "Not for your eyes")).status).toBe(201);

    expect((await inbox(reader.token)).body).toEqual({ unread: 0, notifications: [] });
    const page = await notificationsPage(server.app.deps, { id: reader.id, isAdmin: false }, 1);
    expect(page).toEqual({ total: 0, notifications: [] });
    expect(JSON.stringify(page)).not.toContain("Secret plans");
    // The author sees their own draft's.
    const own = await notificationsPage(server.app.deps, { id: author.id, isAdmin: false }, 1);
    expect(own.notifications.map((n) => [n.kind, n.postTitle])).toEqual([
      ["comment", "Secret plans"],
      ["comment", "Secret plans"],
    ]);

    expect((await edit(author, post, "Open plans", "published")).status).toBe(200);
    expect(await told(reader)).toEqual([
      `reply by ${other.username}`,
      `reply by ${author.username}`,
    ]);
    expect((await inbox(reader.token)).body.unread).toBe(2);
  });
});

describe("deleting", () => {
  it("a comment takes its notifications, a post takes its likes' and comments'", async () => {
    const author = await buildUser(server, api);
    const reader = await buildUser(server, api);
    const post = await addPost(api, author, { category: "Travel" });
    const comment = await addComment(api, reader, post._id, "Soon gone");
    await addComment(api, reader, post._id, "Stays a while");
    await toggleLikeOf(api, reader, post._id);
    expect((await inbox(author.token)).body.unread).toBe(3);

    const gone = await api.delete(`/api/comments/${comment._id}`, { token: reader.token });
    expect(gone.status, gone.text).toBe(200);
    expect(await told(author)).toEqual([
      `comment by ${reader.username}`,
      `like by ${reader.username}`,
    ]);

    expect((await api.delete(`/api/posts/${post._id}`, { token: author.token })).status).toBe(200);
    expect((await inbox(author.token)).body).toEqual({ unread: 0, notifications: [] });
  });

  it("an account takes the notifications it caused and those it received", async () => {
    const author = await buildUser(server, api);
    const leaving = await buildUser(server, api);
    const post = await addPost(api, author, { category: "Travel" });
    const theirs = await addPost(api, leaving, { category: "Travel" });
    await addComment(api, leaving, post._id, "Bye");
    await follow(author.id, leaving);
    await toggleLikeOf(api, author, theirs._id);
    await follow(leaving.id, author);
    expect(await notificationRows(leaving.id)).toBe(4);

    const gone = await api.delete(`/api/users/profile/${leaving.id}`, { token: leaving.token });
    expect(gone.status, gone.text).toBe(200);
    expect(await notificationRows(leaving.id)).toBe(0);
    expect((await inbox(author.token)).body).toEqual({ unread: 0, notifications: [] });
  });
});
