import { IMAGE_CREATE_MAX_BYTES } from "../../contract/limits.js";
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { storeImage } from "../../core/media/images.js";
import { bodyColumns } from "../../core/posts/body.js";
import { buildUser, signInAdmin, type TestUser } from "../support/factories.js";
import { client } from "../support/http.js";
import { filesOfImage, pngImage } from "../support/images.js";
import { failOnServerErrors } from "../support/server-errors.js";
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestServer } from "../support/test-server.js";
import { openTestSite } from "../support/site.js";
import { type ErrorBody } from "../support/post-fixtures.js";

const { server, api } = await openTestSite();
failOnServerErrors(() => server);

const profilePath = (id: string) => `/api/users/profile/${id}`;

/** True while the token is a live session: the admin-only count answers 200 or 403, not 401. */
async function tokenWorks(token: string) {
  const reply = await api.get("/api/users/count", { token });
  return reply.status !== 401;
}

async function uploadPhoto(user: TestUser) {
  const reply = await api.form<{ profilePhoto: { url: string } }>(
    "POST",
    "/api/users/profile/profile-photo",
    { file: { bytes: await pngImage() } },
    { token: user.token },
  );
  expect(reply.status, reply.text).toBe(200);
  return reply.body.profilePhoto.url;
}

/** A post with a stored image, straight into the database (the posts API has its own tests). */
async function insertPost(user: TestUser) {
  const imageKey = await storeImage(
    server.app.deps.storage,
    await pngImage(),
    IMAGE_CREATE_MAX_BYTES,
  );
  const now = new Date().toISOString();
  const id = randomUUID();
  await server.app.deps.db
    .insertInto("posts")
    .values({
      id,
      user_id: user.id,
      title: `A post by ${user.username}`,
      description: "Some words",
      ...bodyColumns("Some words", "markdown", { followLinks: false, imageBases: [] }),
      category: "General",
      image_key: imageKey,
      status: "published",
      publish_at: null,
      published_at: now,
      created_at: now,
      updated_at: now,
    })
    .execute();
  return { id, imageKey };
}

async function insertLike(user: TestUser, postId: string) {
  await server.app.deps.db
    .insertInto("likes")
    .values({ user_id: user.id, post_id: postId, created_at: new Date().toISOString() })
    .execute();
}

async function insertComment(user: TestUser, postId: string) {
  const now = new Date().toISOString();
  const id = randomUUID();
  await server.app.deps.db
    .insertInto("comments")
    .values({
      id,
      post_id: postId,
      user_id: user.id,
      text: "Nice one",
      created_at: now,
      updated_at: now,
    })
    .execute();
  return id;
}

/** Every row that belongs to a user, table by table. */
async function rowsOf(userId: string) {
  const db = server.app.deps.db;
  const [users, sessions, tokens, posts, likes, comments] = await Promise.all([
    db.selectFrom("users").select("id").where("id", "=", userId).execute(),
    db.selectFrom("sessions").select("id").where("user_id", "=", userId).execute(),
    db.selectFrom("verification_tokens").select("id").where("user_id", "=", userId).execute(),
    db.selectFrom("posts").select("id").where("user_id", "=", userId).execute(),
    db.selectFrom("likes").select("post_id").where("user_id", "=", userId).execute(),
    db.selectFrom("comments").select("id").where("user_id", "=", userId).execute(),
  ]);
  return {
    users: users.length,
    sessions: sessions.length,
    verification_tokens: tokens.length,
    posts: posts.length,
    likes: likes.length,
    comments: comments.length,
  };
}

async function rowsOnPost(postId: string) {
  const db = server.app.deps.db;
  const [likes, comments] = await Promise.all([
    db.selectFrom("likes").select("user_id").where("post_id", "=", postId).execute(),
    db.selectFrom("comments").select("id").where("post_id", "=", postId).execute(),
  ]);
  return { likes: likes.length, comments: comments.length };
}

async function adminCount() {
  const rows = await server.app.deps.db
    .selectFrom("users")
    .select("id")
    .where("is_admin", "=", 1)
    .execute();
  return rows.length;
}

describe("DELETE /api/users/profile/:id: refusals", () => {
  it("answers 401 without a token or with a dead one, and keeps the user", async () => {
    const user = await buildUser(server, api);
    const none = await api.delete<ErrorBody>(profilePath(user.id));
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ message: "No token provided, please log in" });
    const dead = await api.delete<ErrorBody>(profilePath(user.id), { token: "z".repeat(43) });
    expect(dead.status).toBe(401);
    expect((await api.get(profilePath(user.id))).status).toBe(200);
  });

  it("answers 403 to another user who is not an admin, and keeps the user", async () => {
    const user = await buildUser(server, api);
    const other = await buildUser(server, api);
    const reply = await api.delete<ErrorBody>(profilePath(user.id), { token: other.token });
    expect(reply.status).toBe(403);
    expect(reply.body).toEqual({ message: "You can only delete your own profile" });
    expect((await api.get(profilePath(user.id))).status).toBe(200);
    expect(await tokenWorks(user.token)).toBe(true);
  });

  it("answers 404 for an unknown or malformed id", async () => {
    const admin = await signInAdmin(server, api);
    const usersBefore = await server.app.deps.db.selectFrom("users").select("id").execute();
    for (const id of [randomUUID(), "abc", encodeURIComponent("'; drop table users; --")]) {
      const reply = await api.delete<ErrorBody>(profilePath(id), { token: admin.token });
      expect(reply.status, id).toBe(404);
      expect(reply.body).toEqual({ message: "User not found" });
    }
    const usersAfter = await server.app.deps.db.selectFrom("users").select("id").execute();
    expect(usersAfter).toHaveLength(usersBefore.length);
  });
});

describe("DELETE /api/users/profile/:id: the owner", () => {
  it("deletes the account with every row and file it owns, and nothing of anyone else", async () => {
    const user = await buildUser(server, api);
    const other = await buildUser(server, api);

    const photoUrl = await uploadPhoto(user);
    const ownPost = await insertPost(user);
    const othersPost = await insertPost(other);
    await insertLike(user, othersPost.id);
    await insertComment(user, othersPost.id);
    await insertLike(other, ownPost.id);
    await insertComment(other, ownPost.id);
    const othersOwnComment = await insertComment(other, othersPost.id);
    const resetLink = await api.post("/api/password/reset-password-link", { email: user.email });
    expect(resetLink.status, resetLink.text).toBe(200);

    // The premise: every kind of row and file exists before the delete.
    expect(await rowsOf(user.id)).toEqual({
      users: 1,
      sessions: 1,
      verification_tokens: 1,
      posts: 1,
      likes: 1,
      comments: 1,
    });
    expect(await rowsOnPost(ownPost.id)).toEqual({ likes: 1, comments: 1 });
    expect(await filesOfImage(server, photoUrl)).not.toEqual([]);
    expect(await filesOfImage(server, ownPost.imageKey)).not.toEqual([]);

    const reply = await api.delete<ErrorBody>(profilePath(user.id), { token: user.token });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual({ message: "Your profile has been deleted" });

    expect(await tokenWorks(user.token)).toBe(false);
    const login = await api.post<ErrorBody>("/api/auth/login", {
      email: user.email,
      password: user.password,
    });
    expect(login.status).toBe(400);
    expect(login.body).toEqual({ message: "Invalid email or password" });
    const profile = await api.get<ErrorBody>(profilePath(user.id));
    expect(profile.status).toBe(404);

    expect(await rowsOf(user.id)).toEqual({
      users: 0,
      sessions: 0,
      verification_tokens: 0,
      posts: 0,
      likes: 0,
      comments: 0,
    });
    expect(await rowsOnPost(ownPost.id)).toEqual({ likes: 0, comments: 0 });
    expect(await filesOfImage(server, photoUrl)).toEqual([]);
    expect(await filesOfImage(server, ownPost.imageKey)).toEqual([]);

    // The other user keeps their account, post, image and own comment.
    expect(await tokenWorks(other.token)).toBe(true);
    expect(await rowsOf(other.id)).toMatchObject({ users: 1, posts: 1, comments: 1, likes: 0 });
    expect(await rowsOnPost(othersPost.id)).toEqual({ likes: 0, comments: 1 });
    const kept = await server.app.deps.db
      .selectFrom("comments")
      .select("id")
      .where("id", "=", othersOwnComment)
      .execute();
    expect(kept).toHaveLength(1);
    expect(await filesOfImage(server, othersPost.imageKey)).not.toEqual([]);
  });

  it("ends every session of the deleted account, not only the one that asked", async () => {
    const user = await buildUser(server, api);
    const second = await api.post<{ token: string }>("/api/auth/login", {
      email: user.email,
      password: user.password,
    });
    expect(second.status).toBe(200);
    const reply = await api.delete(profilePath(user.id), { token: user.token });
    expect(reply.status, reply.text).toBe(200);
    expect(await tokenWorks(second.body.token)).toBe(false);
  });
});

describe("DELETE /api/users/profile/:id: an admin", () => {
  it("deletes another user, with their photo", async () => {
    const admin = await signInAdmin(server, api);
    const user = await buildUser(server, api);
    const photoUrl = await uploadPhoto(user);

    const reply = await api.delete<ErrorBody>(profilePath(user.id), { token: admin.token });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual({ message: "User has been deleted" });

    expect((await api.get(profilePath(user.id))).status).toBe(404);
    expect(await tokenWorks(user.token)).toBe(false);
    expect(await filesOfImage(server, photoUrl)).toEqual([]);
    expect(await rowsOf(user.id)).toMatchObject({ users: 0, sessions: 0 });
    expect(await tokenWorks(admin.token)).toBe(true);
  });

  it("cannot delete themselves when they are the last admin", async () => {
    const admin = await signInAdmin(server, api);
    expect(await adminCount()).toBe(1);

    const reply = await api.delete<ErrorBody>(profilePath(admin.id), { token: admin.token });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ message: "The last admin account cannot be deleted" });

    expect(await tokenWorks(admin.token)).toBe(true);
    const login = await api.post("/api/auth/login", {
      email: ADMIN_EMAIL,
      password: ADMIN_PASSWORD,
    });
    expect(login.status).toBe(200);
  });

  it("with two admins, may delete the other admin", async () => {
    const admin = await signInAdmin(server, api);
    const second = await buildUser(server, api, { isAdmin: true });
    expect(await adminCount()).toBe(2);

    const reply = await api.delete<ErrorBody>(profilePath(second.id), { token: admin.token });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual({ message: "User has been deleted" });
    expect(await tokenWorks(second.token)).toBe(false);
    expect(await adminCount()).toBe(1);
  });

  it("with two admins, may delete themselves, which leaves the other as the last", async () => {
    const admin = await signInAdmin(server, api);
    const second = await buildUser(server, api, { isAdmin: true });

    const reply = await api.delete<ErrorBody>(profilePath(second.id), { token: second.token });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual({ message: "Your profile has been deleted" });

    const last = await api.delete<ErrorBody>(profilePath(admin.id), { token: admin.token });
    expect(last.status).toBe(400);
    expect(last.body).toEqual({ message: "The last admin account cannot be deleted" });
  });
});

describe("DELETE /api/users/profile/:id: two admins deleting themselves at the same moment", () => {
  // Two admins deleting themselves at once must leave one: the admin rows are locked first.
  it("leaves exactly one admin, round after round", async () => {
    const own = await startTestServer();
    try {
      const ownApi = client(own.url);
      let survivor: TestUser = await signInAdmin(own, ownApi);
      for (let round = 1; round <= 10; round += 1) {
        const pair = [survivor, await buildUser(own, ownApi, { isAdmin: true })];
        const replies = await Promise.all(
          pair.map((admin) => ownApi.delete(profilePath(admin.id), { token: admin.token })),
        );
        const admins = await own.app.deps.db
          .selectFrom("users")
          .select("id")
          .where("is_admin", "=", 1)
          .execute();
        expect(admins, `admins left after round ${round}`).toHaveLength(1);
        expect(replies.map((reply) => reply.status).sort()).toEqual([200, 400]);
        survivor = pair.find((admin) => admin.id === admins[0]?.id) ?? survivor;
      }
    } finally {
      await own.close();
    }
  });
});
