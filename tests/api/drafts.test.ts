import { beforeAll, describe, expect, it } from "vitest";
import { publishDuePosts } from "../../core/posts/scheduled-publishing.js";
import { newId } from "../../core/shared/ids.js";
import { migrateTo, migrateToLatest } from "../../db/connect.js";
import { buildUser, type TestUser } from "../support/factories.js";
import { client, type Reply } from "../support/http.js";
import { pngImage, uploadedFiles } from "../support/images.js";
import {
  addPost,
  commentRows,
  likeRows,
  postRows,
  type ErrorBody,
  type PostDetail,
  type PostInput,
  type PostSummary,
} from "../support/post-fixtures.js";
import { openTestSite } from "../support/site.js";
import { startTestServer } from "../support/test-server.js";

// DESIGN.md 9 "Writing": drafts, scheduled posts and who sees them (decision 011).

const {
  server,
  api,
  admin,
  users: { author, other },
} = await openTestSite({ users: ["author", "other"], categories: ["Drafting"] });

const SECOND = 1000;
const inSeconds = (seconds: number) => new Date(Date.now() + seconds * SECOND).toISOString();

function expectError(reply: Reply, status: number, field?: string, message?: string) {
  expect(reply.status, reply.text).toBe(status);
  const body = reply.body as Partial<ErrorBody>;
  expect(typeof body.message).toBe("string");
  if (field !== undefined) expect(body.errors?.[field], reply.text).toBeTypeOf("string");
  if (message !== undefined) {
    expect(body.message).toBe(message);
    if (field !== undefined) expect(body.errors?.[field]).toBe(message);
  }
}

/** Sends a create-post form as `user` (image included) without asserting on the answer. */
async function sendPost(user: TestUser, fields: Record<string, string>) {
  return api.form<PostDetail>(
    "POST",
    "/api/posts",
    {
      fields: { title: "A draft", category: "Drafting", description: "Words.", ...fields },
      file: { bytes: await pngImage(), filename: "photo.png" },
    },
    { token: user.token },
  );
}

const post = (input: Partial<PostInput> & { status?: string }, user = author) =>
  addPost(api, user, { category: "Drafting", ...input });

const editOf = (detail: PostDetail, changes: Record<string, string> = {}) => ({
  title: detail.title,
  category: detail.category,
  description: detail.description,
  ...changes,
});

const put = (user: TestUser | undefined, id: string, body: Record<string, string>) =>
  api.put<PostDetail>(`/api/posts/${id}`, body, { token: user?.token });

const read = (id: string, user?: TestUser) =>
  api.get<PostDetail>(`/api/posts/${id}`, { token: user?.token });

/** The row as stored, to prove a refused request changed nothing. */
const rowOf = (id: string) =>
  server.app.deps.db.selectFrom("posts").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

const ids = (posts: readonly { _id: string }[]) => posts.map((p) => p._id);

/** Every public place a post can be listed or counted, as anyone sees it. */
async function publicSightings(id: string, title: string) {
  const places: string[] = [];
  const lists = {
    "/api/posts?pageNumber=1": await api.get<PostSummary[]>("/api/posts?pageNumber=1"),
    "/api/posts": await api.get<PostSummary[]>("/api/posts"),
    "/api/categories/category/Drafting": await api.get<PostSummary[]>(
      "/api/categories/category/Drafting",
    ),
    [`/api/users/user/${author.id}`]: await api.get<PostSummary[]>(`/api/users/user/${author.id}`),
  };
  for (const [path, reply] of Object.entries(lists)) {
    expect(reply.status, path).toBe(200);
    if (ids(reply.body).includes(id)) places.push(path);
  }
  const profile = await api.get<{ posts: PostSummary[] }>(`/api/users/profile/${author.id}`, {
    token: other.token,
  });
  if (ids(profile.body.posts).includes(id)) places.push("profile");
  for (const path of ["/rss.xml", "/sitemap.xml"]) {
    const text = (await api.get(path)).text;
    if (text.includes(id) || text.includes(title)) places.push(path);
  }
  return places;
}

const publishedCount = async () => Number((await api.get("/api/posts/count")).text);

describe("POST /api/posts with a status", () => {
  it("refuses an unknown status with 400 naming the field, storing nothing", async () => {
    for (const status of ["archived", "", "PUBLISHED"]) {
      const rows = await postRows(server);
      const files = await uploadedFiles(server);
      const reply = await sendPost(author, { status });
      expectError(reply, 400, "status", "Status must be published, draft or scheduled");
      expect(await postRows(server)).toBe(rows);
      expect(await uploadedFiles(server)).toEqual(files);
    }
  });

  it("refuses a schedule without a time, with one that is no time, or one in the past", async () => {
    const cases: [Record<string, string>, string][] = [
      [{}, "Publish time is required to schedule a post"],
      [{ publishAt: "  " }, "Publish time is required to schedule a post"],
      [{ publishAt: "tomorrow" }, "Publish time must be an ISO date and time with its time zone"],
      [
        { publishAt: "2030-02-30T10:00:00Z" },
        "Publish time must be an ISO date and time with its time zone",
      ],
      [
        { publishAt: "2030-01-01T10:00:00" },
        "Publish time must be an ISO date and time with its time zone",
      ],
      [
        { publishAt: "2030-01-01T25:00Z" },
        "Publish time must be an ISO date and time with its time zone",
      ],
      [{ publishAt: inSeconds(-60) }, "Publish time must be in the future"],
      [{ publishAt: "2001-01-01T00:00:00+02:00" }, "Publish time must be in the future"],
    ];
    for (const [fields, message] of cases) {
      const rows = await postRows(server);
      const files = await uploadedFiles(server);
      const reply = await sendPost(author, { status: "scheduled", ...fields });
      expectError(reply, 400, "publishAt", message);
      expect(await postRows(server)).toBe(rows);
      expect(await uploadedFiles(server)).toEqual(files);
    }
  });

  it("keeps SPEC.md's messages and reports the schedule's beside them", async () => {
    const reply = await api.form<PostDetail>(
      "POST",
      "/api/posts",
      { fields: { status: "scheduled" } },
      { token: author.token },
    );
    expect(reply.status).toBe(400);
    const { errors } = reply.body as unknown as ErrorBody;
    expect(errors).toMatchObject({
      image: "image is required",
      title: "Post title is required",
      category: "Post category is required",
      description: "Post description is required",
      publishAt: "Publish time is required to schedule a post",
    });
  });

  it("publishes by default, as a client that knows nothing of drafts expects", async () => {
    const before = Date.now();
    const made = await post({ title: "Published by default" });
    expect(made.status).toBe("published");
    expect(Date.parse(made.publishedAt ?? "")).toBeGreaterThanOrEqual(before - SECOND);
    expect(made).not.toHaveProperty("publishAt");
    expect((await read(made._id)).status).toBe(200);
  });

  it("saves a draft: unpublished, shown to its author and admins alone", async () => {
    const draft = await post({ title: "Draft for nobody", status: "draft" });
    expect(draft.status).toBe("draft");
    expect(draft.publishedAt).toBeNull();
    expect((await read(draft._id, author)).body.title).toBe("Draft for nobody");
    expect((await read(draft._id, admin)).status).toBe(200);
    expect((await read(draft._id)).status).toBe(404);
    expect((await read(draft._id, other)).status).toBe(404);
  });

  it("schedules a post for a time ahead, read with its offset", async () => {
    const scheduled = await post({
      title: "Scheduled with an offset",
      status: "scheduled",
      publishAt: "2099-06-01T12:30:00+02:00",
    });
    expect(scheduled.status).toBe("scheduled");
    expect(scheduled.publishAt).toBe("2099-06-01T10:30:00.000Z");
    expect(scheduled.publishedAt).toBeNull();
    expect((await read(scheduled._id)).status).toBe(404);
  });
});

describe("who sees a draft or a scheduled post", () => {
  let draft: PostDetail;
  let scheduled: PostDetail;

  beforeAll(async () => {
    draft = await post({ title: "Hidden draft words", status: "draft" });
    scheduled = await post({
      title: "Hidden scheduled words",
      status: "scheduled",
      publishAt: inSeconds(3600),
    });
  });

  it("answers 404 to anyone but the author and admins", async () => {
    for (const hidden of [draft, scheduled]) {
      expectError(await read(hidden._id), 404, undefined, "Post not found");
      expectError(await read(hidden._id, other), 404, undefined, "Post not found");
      expect((await read(hidden._id, author)).status).toBe(200);
      expect((await read(hidden._id, admin)).status).toBe(200);
    }
  });

  it("lists and counts neither anywhere public", async () => {
    const count = await publishedCount();
    const visible = await post({ title: "Visible beside the drafts" });
    expect(await publishedCount()).toBe(count + 1);
    expect(await publicSightings(visible._id, visible.title)).toEqual([
      "/api/posts?pageNumber=1",
      "/api/posts",
      "/api/categories/category/Drafting",
      `/api/users/user/${author.id}`,
      "profile",
      "/rss.xml",
      "/sitemap.xml",
    ]);
    for (const hidden of [draft, scheduled]) {
      expect(await publicSightings(hidden._id, hidden.title)).toEqual([]);
    }
  });

  it("keeps the author's own answer out of the answers shared with everyone", async () => {
    const mine = await read(draft._id, author);
    expect(mine.status).toBe(200);
    expect(mine.headers.get("cache-control")).toContain("no-store");
    expect((await read(draft._id)).status).toBe(404);
    expect((await read(draft._id, other)).status).toBe(404);
  });

  it("refuses likes and comments on it with 404, storing nothing", async () => {
    for (const hidden of [draft, scheduled]) {
      const like = await api.put(`/api/posts/like/${hidden._id}`, undefined, {
        token: other.token,
      });
      expectError(like, 404, undefined, "Post not found");
      const comment = await api.post(
        "/api/comments",
        { text: "Found you", postId: hidden._id },
        { token: other.token },
      );
      expectError(comment, 404, undefined, "Post not found");
      expect(await likeRows(server, hidden._id)).toBe(0);
      expect(await commentRows(server, hidden._id)).toBe(0);
    }
  });

  it("refuses someone else's edit, publication, image or delete with 404, changing nothing", async () => {
    const before = await rowOf(draft._id);
    for (const body of [
      editOf(draft, { title: "Taken over" }),
      editOf(draft, { status: "published" }),
      editOf(draft, { status: "scheduled", publishAt: inSeconds(60) }),
    ]) {
      expectError(await put(other, draft._id, body), 404, undefined, "Post not found");
    }
    const image = await api.form(
      "PUT",
      `/api/posts/post-image/${draft._id}`,
      { file: { bytes: await pngImage(), filename: "x.png" } },
      { token: other.token },
    );
    expectError(image, 404);
    expectError(await api.delete(`/api/posts/${draft._id}`, { token: other.token }), 404);
    expect(await rowOf(draft._id)).toEqual(before);
  });

  it("lets an admin see it but not publish it (only the author edits a post)", async () => {
    const before = await rowOf(draft._id);
    const reply = await put(admin, draft._id, editOf(draft, { status: "published" }));
    expectError(reply, 403);
    expect(await rowOf(draft._id)).toEqual(before);
  });

  it("likes and comments are the author's to try on their own draft", async () => {
    const like = await api.put<PostDetail>(`/api/posts/like/${draft._id}`, undefined, {
      token: author.token,
    });
    expect(like.status).toBe(200);
    await api.put(`/api/posts/like/${draft._id}`, undefined, { token: author.token });
  });
});

describe("PUT /api/posts/:id with a status", () => {
  it("refuses a bad status or schedule with 400 naming the field, changing nothing", async () => {
    const draft = await post({ title: "Draft under edit", status: "draft" });
    const before = await rowOf(draft._id);
    const cases: [Record<string, string>, string, string][] = [
      [{ status: "live" }, "status", "Status must be published, draft or scheduled"],
      [{ status: "scheduled" }, "publishAt", "Publish time is required to schedule a post"],
      [
        { status: "scheduled", publishAt: "next week" },
        "publishAt",
        "Publish time must be an ISO date and time with its time zone",
      ],
      [
        { status: "scheduled", publishAt: inSeconds(-1) },
        "publishAt",
        "Publish time must be in the future",
      ],
    ];
    for (const [changes, field, message] of cases) {
      const reply = await put(author, draft._id, editOf(draft, { title: "Changed", ...changes }));
      expectError(reply, 400, field, message);
    }
    // An edit that names a status may leave the other fields out (DESIGN.md 10), but not blank.
    expectError(
      await put(author, draft._id, { status: "published", title: " " }),
      400,
      "title",
      "Title is required",
    );
    expect(await rowOf(draft._id)).toEqual(before);
  });

  it("keeps the state when none is named (a SPEC.md client's edit)", async () => {
    const draft = await post({ title: "Stays a draft", status: "draft" });
    const edited = await put(author, draft._id, editOf(draft, { title: "Still a draft" }));
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body.status).toBe("draft");
    const published = await post({ title: "Stays published" });
    const again = await put(author, published._id, editOf(published, { title: "Still out" }));
    expect(again.body.status).toBe("published");
    expect(again.body.publishedAt).toBe(published.publishedAt);
  });

  it("publishes a draft on top of the list, unpublishes it, and keeps its first publication", async () => {
    const draft = await post({ title: "Draft to publish", status: "draft" });
    const published = await put(author, draft._id, editOf(draft, { status: "published" }));
    expect(published.status, published.text).toBe(200);
    expect(published.body.status).toBe("published");
    const firstPublication = published.body.publishedAt;
    expect(firstPublication).not.toBeNull();
    const page = await api.get<PostSummary[]>("/api/posts?pageNumber=1");
    expect(page.body[0]?._id).toBe(draft._id);
    expect((await read(draft._id)).status).toBe(200);

    const unpublished = await put(author, draft._id, editOf(draft, { status: "draft" }));
    expect(unpublished.body.status).toBe("draft");
    expect((await read(draft._id)).status).toBe(404);
    expect(await publicSightings(draft._id, draft.title)).toEqual([]);

    const republished = await put(author, draft._id, editOf(draft, { status: "published" }));
    expect(republished.body.publishedAt).toBe(firstPublication);
    expect((await read(draft._id)).status).toBe(200);
  });

  it("schedules a draft, reschedules it, and publishes it at once on request", async () => {
    const draft = await post({ title: "Draft to schedule", status: "draft" });
    const at = inSeconds(7200);
    const scheduled = await put(
      author,
      draft._id,
      editOf(draft, { status: "scheduled", publishAt: at }),
    );
    expect(scheduled.body.status).toBe("scheduled");
    expect(scheduled.body.publishAt).toBe(at);
    const kept = await put(author, draft._id, editOf(draft, { title: "Rescheduled title" }));
    expect(kept.body.publishAt).toBe(at);
    const now = await put(author, draft._id, editOf(draft, { status: "published" }));
    expect(now.body.status).toBe("published");
    expect(now.body).not.toHaveProperty("publishAt");
    expect((await rowOf(draft._id)).publish_at).toBeNull();
  });
});

describe("GET /api/users/me/posts", () => {
  let writer: TestUser;
  beforeAll(async () => {
    writer = await buildUser(server, api);
  });

  it("answers 401 without a session", async () => {
    expectError(await api.get("/api/users/me/posts?status=draft"), 401);
  });

  it("answers 400 for a status other than draft or scheduled, or a bad page", async () => {
    for (const query of ["", "?status=published", "?status=all", "?status=draft,scheduled"]) {
      const reply = await api.get(`/api/users/me/posts${query}`, { token: writer.token });
      expectError(reply, 400, "status", "Status must be draft or scheduled");
    }
    const page = await api.get("/api/users/me/posts?status=draft&pageNumber=0", {
      token: writer.token,
    });
    expectError(page, 400, "pageNumber");
  });

  it("lists the author's own drafts (last saved first) and scheduled posts (soonest first)", async () => {
    const drafts: PostDetail[] = [];
    for (let i = 0; i < 3; i += 1) {
      drafts.push(await post({ title: `Own draft ${String(i)}`, status: "draft" }, writer));
    }
    const later = await post(
      { title: "Own later", status: "scheduled", publishAt: inSeconds(7200) },
      writer,
    );
    const sooner = await post(
      { title: "Own sooner", status: "scheduled", publishAt: inSeconds(3600) },
      writer,
    );
    await post({ title: "Own published" }, writer);
    await post({ title: "Someone else's draft", status: "draft" }, other);

    const ownDrafts = await api.get<PostSummary[]>("/api/users/me/posts?status=draft", {
      token: writer.token,
    });
    expect(ownDrafts.status).toBe(200);
    expect(ids(ownDrafts.body)).toEqual(ids(drafts).reverse());
    for (const summary of ownDrafts.body) {
      expect(summary.status).toBe("draft");
      expect(summary).not.toHaveProperty("html");
      expect(summary.user._id).toBe(writer.id);
    }
    const ownScheduled = await api.get<PostSummary[]>("/api/users/me/posts?status=scheduled", {
      token: writer.token,
    });
    expect(ids(ownScheduled.body)).toEqual([sooner._id, later._id]);
    expect(ownScheduled.body[0]?.publishAt).toBe(sooner.publishAt);

    const secondPage = await api.get<PostSummary[]>(
      "/api/users/me/posts?status=draft&pageNumber=2",
      { token: writer.token },
    );
    expect(secondPage.body).toEqual([]);
    const othersView = await api.get<PostSummary[]>("/api/users/me/posts?status=draft", {
      token: other.token,
    });
    expect(ids(othersView.body)).not.toContain(drafts[0]?._id);
  });
});

describe("scheduled publishing", () => {
  /** Polls until `check` holds, for at most `ms`. */
  async function eventually(check: () => Promise<boolean>, ms: number) {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      if (await check()) return true;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return false;
  }

  it("puts a post live at its time on a real server: lists, count, feed and shared answers", async () => {
    const count = await publishedCount();
    const publishAt = inSeconds(2);
    const scheduled = await post({ title: "Goes live by itself", status: "scheduled", publishAt });
    // Kept in the shared answers while it is not yet out.
    expect(ids((await api.get<PostSummary[]>("/api/posts?pageNumber=1")).body)).not.toContain(
      scheduled._id,
    );
    expect((await read(scheduled._id)).status).toBe(404);

    const live = await eventually(async () => (await read(scheduled._id)).status === 200, 6000);
    expect(live).toBe(true);
    const seenAt = Date.now();
    expect(seenAt).toBeGreaterThanOrEqual(Date.parse(publishAt));
    // Woken for its time (the post was scheduled on this instance), not at a later check.
    expect(seenAt - Date.parse(publishAt)).toBeLessThan(1500);

    const out = (await read(scheduled._id)).body;
    expect(out.status).toBe("published");
    expect(out.publishedAt).toBe(publishAt);
    expect(await publishedCount()).toBe(count + 1);
    const page = await api.get<PostSummary[]>("/api/posts?pageNumber=1");
    expect(ids(page.body)).toContain(scheduled._id);
    expect((await api.get("/rss.xml")).text).toContain(scheduled._id);
  });

  it("publishes each due post exactly once when two instances claim at the same moment", async () => {
    // A second server on the same database (SQLite file or PostgreSQL database).
    const second = await startTestServer(
      server.config.databaseUrl
        ? { DATABASE_URL: server.config.databaseUrl }
        : { DATA_DIR: server.config.dataDir },
    );
    try {
      const due: string[] = [];
      for (let i = 0; i < 8; i += 1) {
        const scheduled = await post({
          title: `Due together ${String(i)}`,
          status: "scheduled",
          publishAt: inSeconds(3600),
        });
        due.push(scheduled._id);
      }
      // Their time comes for everyone at once: both instances' claims run side by side, many times.
      await server.app.deps.db
        .updateTable("posts")
        .set({ publish_at: new Date(Date.now() - SECOND).toISOString() })
        .where("id", "in", due)
        .execute();
      const claims = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          publishDuePosts(i % 2 === 0 ? server.app.deps : second.app.deps),
        ),
      );
      const claimed = claims.flat().filter((id) => due.includes(id));
      expect(claimed.sort()).toEqual([...due].sort());
      for (const id of due) {
        const row = await rowOf(id);
        expect(row.status).toBe("published");
        expect(row.published_at).not.toBeNull();
      }
    } finally {
      await second.close();
    }
  });

  it("lets the instances' own jobs race for posts scheduled on one of them", async () => {
    const second = await startTestServer(
      server.config.databaseUrl
        ? { DATABASE_URL: server.config.databaseUrl }
        : { DATA_DIR: server.config.dataDir },
      { publishCheckMs: 50 },
    );
    try {
      const due: PostDetail[] = [];
      // Far enough ahead for five saves on a busy machine.
      const at = inSeconds(5);
      for (let i = 0; i < 5; i += 1) {
        due.push(await post({ title: `Raced ${String(i)}`, status: "scheduled", publishAt: at }));
      }
      const out = await eventually(async () => {
        const states = await Promise.all(due.map(async (p) => (await rowOf(p._id)).status));
        return states.every((state) => state === "published");
      }, 12_000);
      expect(out).toBe(true);
      const published = [...server.logs, ...second.logs]
        .map((line) => JSON.parse(line) as { msg?: string; posts?: string[] })
        .filter((line) => line.msg === "published scheduled posts")
        .flatMap((line) => line.posts ?? [])
        .filter((id) => due.some((p) => p._id === id));
      expect(published.sort()).toEqual(ids(due).sort());
    } finally {
      await second.close();
    }
  });

  it("checks on its own while the server runs, and stops when it closes", async () => {
    const queries: string[] = [];
    const lone = await startTestServer(
      {},
      { publishCheckMs: 20, onQuery: (text) => queries.push(text) },
    );
    const checks = () => queries.filter((text) => text.includes("publish_at")).length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(checks()).toBeGreaterThan(3);
    await lone.close();
    const atClose = checks();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(checks()).toBe(atClose);
    expect(lone.logs.join("\n")).not.toContain("could not publish scheduled posts");
  });
});

describe("posts written before drafts (migration 005)", () => {
  it("are published, at the time they were created, and listed in that order", async () => {
    const own = await startTestServer();
    try {
      const ownApi = client(own.url);
      const writer = await buildUser(own, ownApi);
      const { db } = own.app.deps;
      await migrateTo(db, "004-post-bodies");
      const times = ["2024-01-01T10:00:00.000Z", "2025-06-01T10:00:00.000Z"];
      for (const [index, at] of times.entries()) {
        await db
          .insertInto("posts")
          .values({
            id: newId(),
            user_id: writer.id,
            title: `Before drafts ${String(index)}`,
            description: "Old words",
            category: "Drafting",
            image_key: "legacy/none.webp",
            body_format: "plain",
            html: "<p>Old words</p>",
            excerpt: "Old words",
            reading_minutes: 1,
            created_at: at,
            updated_at: at,
            // Rows of the table as it was: without the columns 005 adds.
          } as never)
          .execute();
      }
      await migrateToLatest(db);
      const listed = await ownApi.get<PostSummary[]>("/api/posts?pageNumber=1");
      expect(listed.body.map((p) => [p.title, p.status, p.publishedAt])).toEqual([
        ["Before drafts 1", "published", times[1]],
        ["Before drafts 0", "published", times[0]],
      ]);
      expect((await ownApi.get("/api/posts/count")).text).toBe("2");
    } finally {
      await own.close();
    }
  });
});
