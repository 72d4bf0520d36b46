import { describe, expect, it } from "vitest";
import { buildUser } from "../support/factories.js";
import { addComment, addPost } from "../support/post-fixtures.js";
import { openTestSite } from "../support/site.js";

/** Reports and the moderation queue (DESIGN.md 9). */
const {
  server,
  api,
  admin,
  users: { author, reader, other },
} = await openTestSite({ users: ["author", "reader", "other"], categories: ["General"] });

const UNKNOWN = "00000000-0000-4000-8000-000000000000";

interface Group {
  _id: string;
  status: string;
  target: { kind: string; _id: string; summary: string; user: { _id: string } | null };
  count: number;
  reports: { reason: string; note: string; reporter: { _id: string; username: string } }[];
  decision: string | null;
  decidedBy: { _id: string; username: string } | null;
}

const report = (body: unknown, token?: string) =>
  api.post<{ _id: string; message: string; errors?: object }>("/api/reports", body, { token });

const decide = (id: string, body: unknown, token?: string) =>
  api.put<{ message: string; decision?: string }>(`/api/reports/${id}`, body, { token });

const queue = (token?: string, query = "") => api.get<Group[]>(`/api/reports${query}`, { token });

async function reportRows() {
  const row = await server.app.deps.db
    .selectFrom("reports")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe("POST /api/reports", () => {
  it("refuses signed-out callers with 401", async () => {
    const post = await addPost(api, author, { category: "General" });
    expect((await report({ postId: post._id, reason: "spam" })).status).toBe(401);
  });

  it.each([
    [{ reason: "spam" }, "target", "Report exactly one of postId, commentId or userId"],
    [
      { postId: "x", userId: "y", reason: "spam" },
      "target",
      "Report exactly one of postId, commentId or userId",
    ],
    [{ postId: "", reason: "spam" }, "postId", "Report exactly one of postId, commentId or userId"],
    [{ userId: "x" }, "reason", "Reason must be spam, harassment or other"],
    [{ userId: "x", reason: "boring" }, "reason", "Reason must be spam, harassment or other"],
    [
      { userId: "x", reason: "other", note: "n".repeat(501) },
      "note",
      "Note must be at most 500 characters long",
    ],
  ])("refuses %j with 400 naming %s, storing nothing", async (body, field, message) => {
    const before = await reportRows();
    const reply = await report(body, reader.token);
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ message, errors: { [field]: message } });
    expect(await reportRows()).toBe(before);
  });

  it("answers 404 naming the field for a target that does not exist", async () => {
    for (const [field, message] of [
      ["postId", "Post not found"],
      ["commentId", "Comment not found"],
      ["userId", "User not found"],
    ] as const) {
      for (const id of [UNKNOWN, "abc"]) {
        const reply = await report({ [field]: id, reason: "spam" }, reader.token);
        expect(reply.status).toBe(404);
        expect(reply.body).toEqual({ message, errors: { [field]: message } });
      }
    }
  });

  it("answers 404 for a post or comment the reporter cannot see, exactly as for a random id", async () => {
    const draft = await addPost(api, author, { category: "General", status: "draft" });
    const scheduled = await addPost(api, author, {
      category: "General",
      status: "scheduled",
      publishAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    // A comment on a post turned back into a draft after it was written.
    const unpublished = await addPost(api, author, { title: "Soon hidden", category: "General" });
    const comment = await addComment(api, reader, unpublished._id, "A comment left behind");
    const hide = await api.put(
      `/api/posts/${unpublished._id}`,
      {
        title: unpublished.title,
        category: unpublished.category,
        description: unpublished.description,
        status: "draft",
      },
      { token: author.token },
    );
    expect(hide.status, hide.text).toBe(200);

    const before = await reportRows();
    for (const [field, id] of [
      ["postId", draft._id],
      ["postId", scheduled._id],
      ["commentId", comment._id],
    ] as const) {
      const hidden = await report({ [field]: id, reason: "spam" }, other.token);
      const random = await report({ [field]: UNKNOWN, reason: "spam" }, other.token);
      expect(hidden.status, `${field} ${id}`).toBe(404);
      expect(hidden.body).toEqual(random.body);
    }
    // Even its writer no longer sees the comment, nor reports it.
    expect((await report({ commentId: comment._id, reason: "other" }, reader.token)).status).toBe(
      404,
    );
    expect(await reportRows()).toBe(before);
    // Admins see drafts, and report what they see.
    expect((await report({ postId: draft._id, reason: "other" }, admin.token)).status).toBe(201);
  });

  it("receives a report (201), and refuses a second open one by the same person with 409", async () => {
    const post = await addPost(api, author, { category: "General" });
    const first = await report(
      { postId: post._id, reason: "spam", note: "Buy pills" },
      reader.token,
    );
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      _id: expect.any(String) as unknown,
      message: "Thank you, your report was received",
    });
    const again = await report({ postId: post._id, reason: "other" }, reader.token);
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ message: "You have already reported this" });
    // Someone else may report it too, and two at once count once.
    const twice = await Promise.all([
      report({ postId: post._id, reason: "spam" }, other.token),
      report({ postId: post._id, reason: "spam" }, other.token),
    ]);
    expect(twice.map((r) => r.status).sort()).toEqual([201, 409]);
  });
});

describe("GET /api/reports", () => {
  it("refuses signed-out callers with 401, members with 403 and a bad status with 400", async () => {
    expect((await queue()).status).toBe(401);
    expect((await queue(reader.token)).status).toBe(403);
    const bad = await queue(admin.token, "?status=pending");
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ errors: { status: "Status must be open or closed" } });
    expect((await queue(admin.token, "?pageNumber=0")).status).toBe(400);
  });

  it("groups open reports by target with its summary, author and how many reported it", async () => {
    const post = await addPost(api, author, { title: "Cheap watches", category: "General" });
    await report({ postId: post._id, reason: "spam" }, reader.token);
    await report({ postId: post._id, reason: "harassment", note: "Rude" }, other.token);
    const reply = await queue(admin.token, "?status=open");
    expect(reply.status).toBe(200);
    const group = reply.body.find((g) => g.target._id === post._id);
    expect(group).toMatchObject({
      status: "open",
      target: { kind: "post", summary: "Cheap watches", user: { _id: author.id } },
      count: 2,
      decision: null,
      decidedBy: null,
    });
    expect(group?.reports.map((r) => [r.reason, r.reporter._id]).sort()).toEqual(
      [
        ["harassment", other.id],
        ["spam", reader.id],
      ].sort(),
    );
  });
});

describe("PUT /api/reports/:id", () => {
  it("refuses signed-out callers (401), members (403), unknown reports (404), bad actions (400)", async () => {
    const post = await addPost(api, author, { category: "General" });
    const { body } = await report({ postId: post._id, reason: "spam" }, reader.token);
    expect((await decide(body._id, { action: "dismiss" })).status).toBe(401);
    expect((await decide(body._id, { action: "dismiss" }, reader.token)).status).toBe(403);
    for (const id of [UNKNOWN, "abc"]) {
      const reply = await decide(id, { action: "dismiss" }, admin.token);
      expect(reply.status).toBe(404);
      expect(reply.body).toEqual({ message: "Report not found" });
    }
    const bad = await decide(body._id, { action: "ban" }, admin.token);
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      message: "Action must be dismiss, remove or suspend",
      errors: { action: "Action must be dismiss, remove or suspend" },
    });
    // A user cannot be "removed": 400, and the report stays open.
    const user = await report({ userId: author.id, reason: "harassment" }, reader.token);
    expect((await decide(user.body._id, { action: "remove" }, admin.token)).status).toBe(400);
    const open = await queue(admin.token);
    expect(open.body.some((g) => g.target._id === author.id)).toBe(true);
  });

  it("dismisses every open report of the target; they are kept, closed, with who decided", async () => {
    const post = await addPost(api, author, { title: "Fine post", category: "General" });
    const first = await report({ postId: post._id, reason: "other" }, reader.token);
    await report({ postId: post._id, reason: "other" }, other.token);
    const reply = await decide(first.body._id, { action: "dismiss" }, admin.token);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ decision: "dismiss", message: "Report dismissed" });
    expect((await api.get(`/api/posts/${post._id}`)).status).toBe(200);
    expect((await queue(admin.token)).body.some((g) => g.target._id === post._id)).toBe(false);
    const closed = await queue(admin.token, "?status=closed");
    expect(closed.body.find((g) => g.target._id === post._id)).toMatchObject({
      status: "closed",
      count: 2,
      decision: "dismiss",
      decidedBy: { _id: admin.id, username: admin.username },
    });
    // Decided already: 409. A new report of the same thing may be made again.
    expect((await decide(first.body._id, { action: "dismiss" }, admin.token)).status).toBe(409);
    expect((await report({ postId: post._id, reason: "spam" }, reader.token)).status).toBe(201);
  });

  it("removes a reported comment, logging the removal and the decision", async () => {
    const post = await addPost(api, author, { category: "General" });
    const comment = await addComment(api, author, post._id, "Visit my spam site");
    const { body } = await report({ commentId: comment._id, reason: "spam" }, reader.token);
    const reply = await decide(body._id, { action: "remove" }, admin.token);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ decision: "remove", message: "Reported content removed" });
    const detail = await api.get<{ comments: unknown[] }>(`/api/posts/${post._id}`);
    expect(detail.body.comments).toEqual([]);
    const log = await api.get<{ action: string; target: { _id: string } }[]>("/api/admin/audit", {
      token: admin.token,
    });
    expect(log.body.slice(0, 2).map((e) => [e.action, e.target._id])).toEqual([
      ["report.remove", comment._id],
      ["comment.delete", comment._id],
    ]);
  });

  it("removes a reported post, logging the removal and the decision", async () => {
    const post = await addPost(api, author, { title: "Miracle cure", category: "General" });
    const { body } = await report({ postId: post._id, reason: "spam" }, reader.token);
    await report({ postId: post._id, reason: "harassment" }, other.token);
    const reply = await decide(body._id, { action: "remove" }, admin.token);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ decision: "remove", message: "Reported content removed" });
    expect((await api.get(`/api/posts/${post._id}`)).status).toBe(404);
    const closed = await queue(admin.token, "?status=closed");
    expect(closed.body.find((g) => g.target._id === post._id)).toMatchObject({
      count: 2,
      decision: "remove",
      target: { summary: "Miracle cure", user: { _id: author.id } },
      decidedBy: { _id: admin.id },
    });
    const log = await api.get<{ action: string; target: { _id: string } }[]>("/api/admin/audit", {
      token: admin.token,
    });
    expect(log.body.slice(0, 2).map((e) => [e.action, e.target._id])).toEqual([
      ["report.remove", post._id],
      ["post.delete", post._id],
    ]);
  });

  it("refuses to suspend oneself through a report (400), leaving it open", async () => {
    const post = await addPost(api, admin, { category: "General" });
    const { body } = await report({ postId: post._id, reason: "other" }, reader.token);
    const reply = await decide(body._id, { action: "suspend" }, admin.token);
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ message: "You cannot suspend your own account" });
    expect((await queue(admin.token)).body.some((g) => g.target._id === post._id)).toBe(true);
  });

  it("of two admins deciding at once, one does it (200) and the other gets 409 with nothing done", async () => {
    const second = await buildUser(server, api, { isAdmin: true });
    const audit = async (ids: string[]) =>
      server.app.deps.db
        .selectFrom("audit_log")
        .select(["action", "actor_id"])
        .where("target_id", "in", ids)
        .execute();
    for (const round of [1, 2, 3]) {
      const spammer = await buildUser(server, api);
      const post = await addPost(api, spammer, { category: "General" });
      const { body } = await report({ postId: post._id, reason: "spam" }, reader.token);
      // One removes the post while the other suspends its author: only one of them may happen.
      const [removal, suspension] = await Promise.all([
        decide(body._id, { action: "remove" }, admin.token),
        decide(body._id, { action: "suspend" }, second.token),
      ]);
      expect([removal.status, suspension.status].sort(), `round ${String(round)}`).toEqual([
        200, 409,
      ]);
      const loser = removal.status === 409 ? removal : suspension;
      expect(loser.body).toEqual({ message: "This report has already been decided" });
      const removed = removal.status === 200;
      const winner = removed ? admin : second;
      expect((await api.get(`/api/posts/${post._id}`)).status).toBe(removed ? 404 : 200);
      const suspendedRow = await server.app.deps.db
        .selectFrom("users")
        .select("suspended_at")
        .where("id", "=", spammer.id)
        .executeTakeFirstOrThrow();
      expect(suspendedRow.suspended_at === null).toBe(removed);
      const entries = await audit([post._id, spammer.id]);
      expect(entries.map((e) => [e.action, e.actor_id]).sort()).toEqual(
        (removed
          ? [
              ["post.delete", winner.id],
              ["report.remove", winner.id],
            ]
          : // A suspension by a report's decision is that decision's one entry (issue 33).
            [["report.suspend", winner.id]]
        ).sort(),
      );
      const closed = await queue(admin.token, "?status=closed");
      expect(closed.body.find((g) => g.target._id === post._id)).toMatchObject({
        decision: removed ? "remove" : "suspend",
        decidedBy: { _id: winner.id },
      });
    }
    // Two removals at once: the post goes once, logged once.
    const post = await addPost(api, author, { category: "General" });
    const { body } = await report({ postId: post._id, reason: "spam" }, reader.token);
    const both = await Promise.all([
      decide(body._id, { action: "remove" }, admin.token),
      decide(body._id, { action: "remove" }, second.token),
    ]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
    const winner = both[0].status === 200 ? admin : second;
    expect((await audit([post._id])).map((e) => [e.action, e.actor_id]).sort()).toEqual([
      ["post.delete", winner.id],
      ["report.remove", winner.id],
    ]);
  });

  it("suspends the author of a reported post: their sessions end", async () => {
    const spammer = await buildUser(server, api);
    const post = await addPost(api, spammer, { category: "General" });
    const { body } = await report({ postId: post._id, reason: "spam" }, reader.token);
    const reply = await decide(body._id, { action: "suspend" }, admin.token);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ decision: "suspend", message: "Author suspended" });
    expect(
      (await api.get("/api/users/profile/" + spammer.id, { token: spammer.token })).status,
    ).toBe(200);
    const write = await api.post(
      "/api/comments",
      { text: "hello", postId: post._id },
      { token: spammer.token },
    );
    expect(write.status).toBe(401);
    const login = await api.post("/api/auth/login", {
      email: spammer.email,
      password: spammer.password,
    });
    expect(login.status).toBe(403);
  });
});
