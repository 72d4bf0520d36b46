import { describe, expect, it } from "vitest";
import { nextPublishTime } from "../../core/posts/scheduled-publishing.js";
import { buildUser, loginAs, signInAdmin } from "../support/factories.js";
import { addPost } from "../support/post-fixtures.js";
import { openTestSite } from "../support/site.js";

/** PUT /api/users/suspend/:id (DESIGN.md 9): admins suspend and restore members. */
const {
  server,
  api,
  users: { member },
  ...site
} = await openTestSite({ users: ["member"], categories: ["General"] });
/** Signed in again after a test that suspends the admins. */
let admin = site.admin;

const UNKNOWN = "00000000-0000-4000-8000-000000000000";

const suspend = (id: string, body: unknown, token?: string) =>
  api.put<{ _id?: string; suspended?: boolean; message: string; errors?: object }>(
    `/api/users/suspend/${id}`,
    body,
    { token },
  );

async function suspendedAt(id: string) {
  const row = await server.app.deps.db
    .selectFrom("users")
    .select("suspended_at")
    .where("id", "=", id)
    .executeTakeFirstOrThrow();
  return row.suspended_at;
}

describe("PUT /api/users/suspend/:id", () => {
  it("refuses signed-out callers with 401", async () => {
    const reply = await suspend(member.id, { suspended: true });
    expect(reply.status).toBe(401);
    expect(await suspendedAt(member.id)).toBeNull();
  });

  it("refuses members with 403, even on themselves", async () => {
    const other = await buildUser(server, api);
    for (const target of [other.id, member.id, admin.id]) {
      const reply = await suspend(target, { suspended: true }, member.token);
      expect(reply.status).toBe(403);
      expect(reply.body).toEqual({ message: "Only admins may do this" });
    }
    expect(await suspendedAt(other.id)).toBeNull();
  });

  it("answers 404 for an account that does not exist", async () => {
    for (const id of [UNKNOWN, "abc"]) {
      const reply = await suspend(id, { suspended: true }, admin.token);
      expect(reply.status).toBe(404);
      expect(reply.body).toEqual({ message: "User not found" });
    }
  });

  it("refuses an admin suspending their own account with 400", async () => {
    const reply = await suspend(admin.id, { suspended: true }, admin.token);
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ message: "You cannot suspend your own account" });
    expect(await suspendedAt(admin.id)).toBeNull();
  });

  it.each([[{}], [{ suspended: "yes" }], [{ suspended: 1 }], [null]])(
    "refuses %j with 400 naming the field",
    async (body) => {
      const reply = await suspend(member.id, body, admin.token);
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual({
        message: "suspended must be true or false",
        errors: { suspended: "suspended must be true or false" },
      });
      expect(await suspendedAt(member.id)).toBeNull();
    },
  );

  it("never leaves the site without an active admin: two admins suspending each other", async () => {
    const second = await buildUser(server, api, { isAdmin: true });
    const third = await buildUser(server, api, { isAdmin: true });
    // The start-up admin steps aside for this test, so these two are the only active admins.
    await server.app.deps.db
      .updateTable("users")
      .set({ suspended_at: new Date().toISOString() })
      .where("id", "=", admin.id)
      .execute();
    try {
      const [one, two] = await Promise.all([
        suspend(third.id, { suspended: true }, second.token),
        suspend(second.id, { suspended: true }, third.token),
      ]);
      const statuses = [one.status, two.status].sort();
      // The loser is refused: 409 if it was already inside, 401 if its session ended first.
      expect(statuses[0]).toBe(200);
      expect([401, 409]).toContain(statuses[1]);
      const refused = [one, two].find((reply) => reply.status === 409);
      if (refused) {
        expect(refused.body).toEqual({ message: "The last admin account cannot be suspended" });
      }
      const active = [await suspendedAt(second.id), await suspendedAt(third.id)].filter(
        (at) => at === null,
      );
      expect(active).toHaveLength(1);
    } finally {
      await server.app.deps.db
        .updateTable("users")
        .set({ suspended_at: null })
        .where("id", "in", [admin.id, second.id, third.id])
        .execute();
      admin = await signInAdmin(server, api);
    }
  });

  it("suspends: sessions end at once, sign-in gets 403, writes fail, content stays", async () => {
    const target = await buildUser(server, api);
    const secondSession = await loginAs(api, target.email, target.password);
    const post = await addPost(api, target, { category: "General" });

    const reply = await suspend(target.id, { suspended: true }, admin.token);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      _id: target.id,
      suspended: true,
      message: "User has been suspended",
    });

    for (const token of [target.token, secondSession]) {
      const write = await api.post(
        "/api/comments",
        { text: "Still here?", postId: post._id },
        { token },
      );
      expect(write.status).toBe(401);
      expect((await api.put(`/api/posts/like/${post._id}`, {}, { token })).status).toBe(401);
    }
    const sessions = await server.app.deps.db
      .selectFrom("sessions")
      .select("id")
      .where("user_id", "=", target.id)
      .execute();
    expect(sessions).toEqual([]);

    const login = await api.post("/api/auth/login", {
      email: target.email,
      password: target.password,
    });
    expect(login.status).toBe(403);
    expect(login.body).toEqual({
      message: "This account is suspended",
      reason: null,
      suspendedUntil: null,
    });
    // A wrong password says nothing about the suspension.
    const guess = await api.post("/api/auth/login", { email: target.email, password: "Wrong-1!" });
    expect(guess.status).toBe(400);

    expect((await api.get(`/api/posts/${post._id}`)).status).toBe(200);
    const users = await api.get<{ _id: string; suspended: boolean }[]>("/api/users/profile", {
      token: admin.token,
    });
    expect(users.body.find((user) => user._id === target.id)?.suspended).toBe(true);

    const restored = await suspend(target.id, { suspended: false }, admin.token);
    expect(restored.status).toBe(200);
    expect(restored.body).toEqual({
      _id: target.id,
      suspended: false,
      message: "User has been restored",
    });
    const token = await loginAs(api, target.email, target.password);
    const comment = await api.post(
      "/api/comments",
      { text: "Back again", postId: post._id },
      { token },
    );
    expect(comment.status).toBe(201);
  });
});

describe("a suspended account's scheduled posts", () => {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const inSeconds = (seconds: number) => new Date(Date.now() + seconds * 1000).toISOString();
  const rowOf = (id: string) =>
    server.app.deps.db
      .selectFrom("posts")
      .select(["status", "publish_at", "published_at"])
      .where("id", "=", id)
      .executeTakeFirstOrThrow();

  it("wait while it is suspended; once restored, a post whose time passed goes out at once and a later one keeps its time", async () => {
    const writer = await buildUser(server, api);
    const publishAt = inSeconds(1);
    const due = await addPost(api, writer, { category: "General", status: "scheduled", publishAt });
    const laterAt = inSeconds(3600);
    const later = await addPost(api, writer, {
      category: "General",
      status: "scheduled",
      publishAt: laterAt,
    });
    expect((await suspend(writer.id, { suspended: true }, admin.token)).status).toBe(200);

    // Past its time: this instance woke for it (it was scheduled here) and left it waiting.
    await sleep(2500);
    expect((await api.get(`/api/posts/${due._id}`)).status).toBe(404);
    expect(await rowOf(due._id)).toMatchObject({ status: "scheduled", published_at: null });
    // Nothing of theirs to wake for: the job does not spin on the held post.
    expect(await nextPublishTime(server.app.deps)).toBeUndefined();

    const restoredAt = Date.now();
    expect((await suspend(writer.id, { suspended: false }, admin.token)).status).toBe(200);
    let live = false;
    while (!live && Date.now() - restoredAt < 1500) {
      await sleep(50);
      live = (await api.get(`/api/posts/${due._id}`)).status === 200;
    }
    expect(live, "published within 1.5 s of the restore").toBe(true);
    // Late, as after a stop of every instance: it keeps its scheduled time (decision 011).
    expect(await rowOf(due._id)).toMatchObject({ status: "published", published_at: publishAt });
    expect(await rowOf(later._id)).toMatchObject({
      status: "scheduled",
      publish_at: laterAt,
    });
  });
});
