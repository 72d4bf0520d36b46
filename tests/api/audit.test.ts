import { describe, expect, it } from "vitest";
import { buildUser } from "../support/factories.js";
import { addCategory, addComment, addPost } from "../support/post-fixtures.js";
import { openTestSite } from "../support/site.js";

/** GET /api/admin/audit (DESIGN.md 9): every admin action, newest first, read-only. */
const {
  server,
  api,
  admin,
  users: { member },
} = await openTestSite({ users: ["member"] });

interface Entry {
  _id: string;
  actor: { _id: string; username: string };
  action: string;
  target: { kind: string; _id: string; summary: string };
  createdAt: string;
}

const audit = (token?: string, query = "") =>
  api.get<Entry[]>(`/api/admin/audit${query}`, { token });

async function entryCount() {
  const row = await server.app.deps.db
    .selectFrom("audit_log")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe("GET /api/admin/audit", () => {
  it("refuses signed-out callers with 401 and members with 403", async () => {
    expect((await audit()).status).toBe(401);
    const reply = await audit(member.token);
    expect(reply.status).toBe(403);
    expect(reply.body).toEqual({ message: "Only admins may do this" });
  });

  it("refuses a pageNumber that is not a whole number from 1 with 400", async () => {
    for (const page of ["0", "abc", "-1"]) {
      expect((await audit(admin.token, `?pageNumber=${page}`)).status).toBe(400);
    }
  });

  it("has no route that changes or deletes the log", async () => {
    await addCategory(api, admin, "Logged");
    const [entry] = (await audit(admin.token)).body;
    if (!entry) throw new Error("no entry");
    const before = await entryCount();
    for (const path of ["/api/admin/audit", `/api/admin/audit/${entry._id}`]) {
      expect((await api.delete(path, { token: admin.token })).status).toBe(404);
      expect((await api.put(path, { action: "x" }, { token: admin.token })).status).toBe(404);
      expect((await api.post(path, { action: "x" }, { token: admin.token })).status).toBe(404);
    }
    expect(await entryCount()).toBe(before);
  });

  it("records every admin action on others' things, newest first, and none of their own", async () => {
    const before = await entryCount();
    const category = await addCategory(api, admin, "Audited");
    const author = await buildUser(server, api);
    const gone = await buildUser(server, api);
    const post = await addPost(api, author, { title: "Doomed post", category: "Audited" });
    const kept = await addPost(api, author, { title: "Kept post", category: "Audited" });
    const comment = await addComment(api, author, kept._id, "A doomed remark");

    // The admin's own things: not admin actions, not logged.
    const own = await addPost(api, admin, { title: "Admin's own", category: "Audited" });
    const ownComment = await addComment(api, admin, kept._id, "Admin speaking");
    expect(
      (await api.delete(`/api/comments/${ownComment._id}`, { token: admin.token })).status,
    ).toBe(200);
    expect((await api.delete(`/api/posts/${own._id}`, { token: admin.token })).status).toBe(200);
    // Members deleting their own things: not logged either.
    const mine = await addComment(api, author, kept._id, "Never mind");
    expect((await api.delete(`/api/comments/${mine._id}`, { token: author.token })).status).toBe(
      200,
    );

    const calls = [
      () => api.delete(`/api/posts/${post._id}`, { token: admin.token }),
      () => api.delete(`/api/comments/${comment._id}`, { token: admin.token }),
      () => api.put(`/api/users/suspend/${author.id}`, { suspended: true }, { token: admin.token }),
      () =>
        api.put(`/api/users/suspend/${author.id}`, { suspended: false }, { token: admin.token }),
      () => api.delete(`/api/users/profile/${gone.id}`, { token: admin.token }),
      () => api.delete(`/api/categories/${category._id}`, { token: admin.token }),
    ];
    // One after the other: the log orders by time.
    for (const call of calls) expect((await call()).status).toBe(200);

    expect(await entryCount()).toBe(before + 7);
    const reply = await audit(admin.token, "?pageNumber=1");
    expect(reply.status).toBe(200);
    expect(reply.body).toHaveLength(6);
    const expected = [
      ["category.delete", "category", category._id, "Audited"],
      ["user.delete", "user", gone.id, gone.username],
      ["user.restore", "user", author.id, author.username],
      ["user.suspend", "user", author.id, author.username],
      ["comment.delete", "comment", comment._id, "A doomed remark"],
      ["post.delete", "post", post._id, "Doomed post"],
    ];
    expect(
      reply.body.map((e) => [e.action, e.target.kind, e.target._id, e.target.summary]),
    ).toEqual(expected);
    for (const entry of reply.body) {
      expect(entry.actor).toEqual({ _id: admin.id, username: admin.username });
      expect(Object.keys(entry).sort()).toEqual(["_id", "action", "actor", "createdAt", "target"]);
    }
    const second = await audit(admin.token, "?pageNumber=2");
    expect(second.body[0]).toMatchObject({
      action: "category.create",
      target: { kind: "category", _id: category._id, summary: "Audited" },
    });
  });

  it("writes nothing for an action that was refused", async () => {
    const before = await entryCount();
    const unknown = "00000000-0000-4000-8000-000000000000";
    expect((await api.delete(`/api/categories/${unknown}`, { token: admin.token })).status).toBe(
      404,
    );
    expect(
      (await api.put(`/api/users/suspend/${admin.id}`, { suspended: true }, { token: admin.token }))
        .status,
    ).toBe(400);
    expect(await entryCount()).toBe(before);
  });
});
