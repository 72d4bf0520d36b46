import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { integrationMessages } from "../../contract/integrations.js";
import { seriesMessages as m } from "../../contract/series.js";
import { buildUser, type TestUser } from "../support/factories.js";
import { addPost, expectPublicUser, type PostDetail } from "../support/post-fixtures.js";
import { expectError, placesOf, seriesCalls, type Series } from "../support/series-fixtures.js";
import { failOnServerErrors } from "../support/server-errors.js";
import { openTestSite } from "../support/site.js";

// Series (DESIGN.md 11, "Pages and series"; decision 032): a writer's own posts in the order they
// choose; readers see the published ones, numbered among themselves. What a post says of its
// series, and the series' feeds: tests/api/series-posts.test.ts.

const {
  server,
  api,
  admin,
  users: { writer, other },
} = await openTestSite({ users: ["writer", "other"], categories: ["Lessons"] });

failOnServerErrors(() => server);

const { addSeries, getSeries, putSeries, orderSeries, deleteSeries } = seriesCalls(api);

const SIGNED_OUT = "No token provided, please log in";
/** Ids that are no series: unknown, malformed and injection-shaped. */
const MISSING_IDS = [randomUUID(), "abc", "1%20OR%201=1", "'%3B--"];

let posted = 0;
/** A post of `user`'s (published unless said otherwise), titled in order of making. */
function post(
  user: TestUser,
  fields: { status?: string; publishAt?: string; title?: string } = {},
) {
  posted += 1;
  return addPost(api, user, { title: `Part ${String(posted)}`, category: "Lessons", ...fields });
}

const seriesRows = () => server.app.deps.db.selectFrom("series").selectAll().execute();
const seriesOfPost = (id: string) =>
  server.app.deps.db
    .selectFrom("posts")
    .select(["series_id", "series_position"])
    .where("id", "=", id)
    .executeTakeFirstOrThrow();
const titles = (series: Series) => series.posts.map((p) => p.title);

describe("who may write a series", () => {
  it("refuses signed-out callers with 401 on every write, changing nothing", async () => {
    const series = await addSeries(writer);
    const before = await seriesRows();
    const calls: [string, string, Record<string, unknown>?][] = [
      ["POST", "/api/series", { title: "Anonymous" }],
      ["PUT", `/api/series/${series._id}`, { title: "Hijacked" }],
      ["DELETE", `/api/series/${series._id}`],
    ];
    for (const [method, path, body] of calls) {
      const headers: Record<string, string> = body ? { "content-type": "application/json" } : {};
      const reply = await api.raw(method, path, body && JSON.stringify(body), { headers });
      expectError(reply, 401, SIGNED_OUT);
    }
    expect(await seriesRows()).toEqual(before);
  });

  it("lets its writer alone change it (403), and its writer or an admin delete it", async () => {
    const mine = await post(writer);
    const series = await addSeries(writer, { title: "Mine" });
    await orderSeries(series._id, writer, [mine]);
    const theirs = await post(other);
    const before = (await getSeries(series._id, writer)).body;
    for (const user of [other, admin]) {
      for (const change of [{ title: "Taken" }, { posts: [] }, { posts: [theirs._id] }]) {
        expectError(await putSeries(series._id, change, user), 403, m.notOwner);
      }
    }
    expectError(await deleteSeries(series._id, other), 403, m.deleteDenied);
    expect((await getSeries(series._id, writer)).body).toEqual(before);
  });

  it("refuses a read-only API token every write (403), and lets it read", async () => {
    const made = await api.post<{ token: string }>(
      "/api/tokens",
      { name: "reader", scope: "read" },
      { token: writer.token },
    );
    expect(made.status, made.text).toBe(201);
    const token = { token: made.body.token };
    const series = await addSeries(writer);
    const before = await seriesRows();
    const message = integrationMessages.readOnlyToken;
    expectError(await api.post("/api/series", { title: "By token" }, token), 403, message);
    expectError(await putSeries(series._id, { title: "By token" }, token), 403, message);
    expectError(await deleteSeries(series._id, token), 403, message);
    expect(await seriesRows()).toEqual(before);
    expect((await getSeries(series._id, token)).body).toEqual(series);
  });
});

/** A field sent wrong, the field the answer names, and its words. */
type Refusal = [Record<string, unknown>, string, string];

describe("what a series must be", () => {
  it.each<Refusal>([
    [{}, "title", m.titleRequired],
    [{ title: "   " }, "title", m.titleRequired],
    [{ title: 42 }, "title", m.titleRequired],
    [{ title: "t".repeat(201) }, "title", m.titleTooLong],
    [{ title: "Long", description: "d".repeat(501) }, "description", m.descriptionTooLong],
  ])("refuses %j with 400 naming the field", async (fields, field, message) => {
    const count = (await seriesRows()).length;
    expectError(
      await api.post("/api/series", fields, { token: writer.token }),
      400,
      message,
      field,
    );
    expect(await seriesRows()).toHaveLength(count);
  });

  it("takes a title of 200 characters and a description of 500, blank lines kept", async () => {
    const description = `${"d".repeat(250)}\r\n${"e".repeat(248)}`;
    const series = await addSeries(writer, { title: "t".repeat(200), description });
    expect(series.title).toHaveLength(200);
    expect(series.description).toBe(description.replace("\r\n", "\n"));
  });

  /** A series of the writer's holding one post, to show a refused edit leaves it whole. */
  async function seriesOfOne() {
    const series = await addSeries(writer);
    return orderSeries(series._id, writer, [await post(writer)]);
  }

  it.each<[unknown, string, string]>([
    [{ title: "" }, "title", m.titleRequired],
    [{ title: "t".repeat(201) }, "title", m.titleTooLong],
    [{ description: "d".repeat(501) }, "description", m.descriptionTooLong],
    [{ posts: "not a list" }, "posts", m.postsInvalid],
    [{ posts: { 0: randomUUID() } }, "posts", m.postsInvalid],
    [{ posts: [randomUUID(), 5] }, "posts.1", m.postsInvalid],
    [{ posts: [null] }, "posts.0", m.postsInvalid],
    [{ posts: Array.from({ length: 101 }, () => randomUUID()) }, "posts", m.postsTooMany],
  ])(
    "refuses an edit %j with 400 naming the field, leaving it as it was",
    async (edit, field, message) => {
      const series = await seriesOfOne();
      expectError(await putSeries(series._id, edit, writer), 400, message, field);
      expect((await getSeries(series._id, writer)).body).toEqual(series);
    },
  );

  it("refuses a post given twice", async () => {
    const series = await seriesOfOne();
    const [first] = series.posts;
    const twice = [first?._id, (await post(writer))._id, first?._id];
    expectError(
      await putSeries(series._id, { posts: twice }, writer),
      400,
      m.postRepeated,
      "posts",
    );
    expect((await getSeries(series._id, writer)).body).toEqual(series);
  });

  it("refuses any post not the writer's, naming each by its place, and moves none", async () => {
    const series = await seriesOfOne();
    const own = await post(writer);
    const theirs = await post(other);
    const theirDraft = await post(other, { status: "draft" });
    const theirSeries = await addSeries(other);
    await orderSeries(theirSeries._id, other, [theirs]);
    const ids = [own._id, theirs._id, theirDraft._id, randomUUID(), "abc", "1 OR 1=1", ""];
    const reply = await putSeries(series._id, { posts: ids }, writer);
    // Another writer's post, published or not, reads as one that does not exist.
    expect(reply.status, reply.text).toBe(400);
    expect(reply.body).toEqual({
      message: m.postNotOwn,
      errors: Object.fromEntries(
        [1, 2, 3, 4, 5, 6].map((i) => [`posts.${String(i)}`, m.postNotOwn]),
      ),
    });
    expect((await getSeries(series._id, writer)).body).toEqual(series);
    expect(await seriesOfPost(own._id)).toEqual({ series_id: null, series_position: null });
    expect((await getSeries(theirSeries._id)).body.posts.map((p) => p._id)).toEqual([theirs._id]);
  });
});

describe("series that are not there", () => {
  it("answers 404 for an unknown, malformed or injection-shaped id, to anyone", async () => {
    for (const id of MISSING_IDS) {
      for (const user of [undefined, writer, admin]) {
        expectError(await getSeries(id, user), 404, m.notFound);
      }
      expectError(await putSeries(id, { title: "x" }, writer), 404, m.notFound);
      expectError(await putSeries(id, { posts: [] }, admin), 404, m.notFound);
      expectError(await deleteSeries(id, writer), 404, m.notFound);
      expectError(await deleteSeries(id, admin), 404, m.notFound);
    }
  });
});

describe("a series' life", () => {
  it("starts empty, as its writer's, read alike by anyone", async () => {
    const reply = await api.post<Series>(
      "/api/series",
      { title: "  Rust basics ", description: " Five short parts.\r\nIn order. " },
      { token: writer.token },
    );
    expect(reply.status, reply.text).toBe(201);
    const series = reply.body;
    expect(Object.keys(series).sort()).toEqual(
      ["_id", "author", "createdAt", "description", "posts", "title", "updatedAt"].sort(),
    );
    expect(series).toMatchObject({
      title: "Rust basics",
      description: "Five short parts.\nIn order.",
      posts: [],
      updatedAt: series.createdAt,
    });
    expectPublicUser(series.author);
    expect(series.author).toMatchObject({ _id: writer.id, username: writer.username });
    for (const user of [undefined, other, writer, admin]) {
      const read = await getSeries(series._id, user);
      expect(read.status).toBe(200);
      expect(read.body).toEqual(series);
    }
    expect((await addSeries(writer, { description: undefined })).description).toBe("");
  });

  it("keeps its posts in the writer's order, and a title edit leaves them be", async () => {
    const [one, two, three] = [await post(writer), await post(writer), await post(writer)];
    const series = await addSeries(writer, { title: "Three parts" });
    const ordered = await orderSeries(series._id, writer, [two, three, one]);
    expect(ordered.posts.map((p) => p._id)).toEqual([two._id, three._id, one._id]);
    expect(placesOf(ordered.posts)).toEqual([
      `${two.title} 1/3`,
      `${three.title} 2/3`,
      `${one.title} 3/3`,
    ]);
    expect(ordered.posts.every((p) => p.series?._id === series._id)).toBe(true);
    expect(ordered.updatedAt > series.updatedAt).toBe(true);
    expect((await getSeries(series._id)).body).toEqual(ordered);

    const renamed = await putSeries(series._id, { title: "Three parts, renamed" }, writer);
    expect(renamed.status, renamed.text).toBe(200);
    expect(titles(renamed.body)).toEqual(titles(ordered));
    expect(renamed.body.posts.map((p) => p.series?.title)).toEqual(
      Array(3).fill("Three parts, renamed"),
    );

    // The whole list each time: one left out leaves the series; none empties it.
    const reordered = await orderSeries(series._id, writer, [one, three]);
    expect(placesOf(reordered.posts)).toEqual([`${one.title} 1/2`, `${three.title} 2/2`]);
    expect(await seriesOfPost(two._id)).toEqual({ series_id: null, series_position: null });
    expect((await orderSeries(series._id, writer, [])).posts).toEqual([]);
    expect(await seriesOfPost(one._id)).toEqual({ series_id: null, series_position: null });
  });

  it("shows readers its published posts numbered among themselves, its writer all", async () => {
    const first = await post(writer);
    const draft = await post(writer, { status: "draft" });
    const publishAt = new Date(Date.now() + 86_400_000).toISOString();
    const scheduled = await post(writer, { status: "scheduled", publishAt });
    const last = await post(writer);
    const series = await addSeries(writer);
    await orderSeries(series._id, writer, [first, draft, scheduled, last]);
    for (const user of [undefined, other, admin]) {
      const read = (await getSeries(series._id, user)).body;
      expect(placesOf(read.posts)).toEqual([`${first.title} 1/2`, `${last.title} 2/2`]);
    }
    // The writer sees each unpublished part where it will stand once it is out.
    const own = (await getSeries(series._id, writer)).body;
    expect(own.posts.map((p) => p.status)).toEqual([
      "published",
      "draft",
      "scheduled",
      "published",
    ]);
    expect(placesOf(own.posts)).toEqual([
      `${first.title} 1/2`,
      `${draft.title} 2/3`,
      `${scheduled.title} 2/3`,
      `${last.title} 2/2`,
    ]);
  });

  it("moves a post from another of the writer's series, a post being in one at most", async () => {
    const [a, b, c] = [await post(writer), await post(writer), await post(writer)];
    const first = await addSeries(writer, { title: "First" });
    const second = await addSeries(writer, { title: "Second" });
    await orderSeries(first._id, writer, [a, b]);
    await orderSeries(second._id, writer, [c]);
    const before = (await getSeries(first._id)).body.updatedAt;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const moved = await orderSeries(second._id, writer, [a, c]);
    expect(placesOf(moved.posts)).toEqual([`${a.title} 1/2`, `${c.title} 2/2`]);
    expect(moved.posts[0]?.series).toMatchObject({ _id: second._id, title: "Second" });
    const left = (await getSeries(first._id)).body;
    expect(placesOf(left.posts)).toEqual([`${b.title} 1/1`]);
    // The series it left changed too: its page's date (and the sitemap's) says so.
    expect(left.updatedAt > before).toBe(true);
  });

  it("is deleted by its writer, its posts staying in no series, unlogged", async () => {
    const kept = await post(writer);
    const series = await addSeries(writer, { title: "Short-lived" });
    await orderSeries(series._id, writer, [kept]);
    const reply = await deleteSeries(series._id, writer);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual({ seriesId: series._id, message: m.deleted });
    expectError(await getSeries(series._id, writer), 404, m.notFound);
    expectError(await deleteSeries(series._id, writer), 404, m.notFound);
    const read = await api.get<PostDetail>(`/api/posts/${kept._id}`);
    expect(read.status).toBe(200);
    expect(read.body.series).toBeNull();
    expect(await auditOf(series._id)).toEqual([]);
  });

  it("is deleted by an admin, and the audit log names it", async () => {
    const kept = await post(other);
    const series = await addSeries(other, { title: "Spam series" });
    await orderSeries(series._id, other, [kept]);
    const reply = await deleteSeries(series._id, admin);
    expect(reply.status, reply.text).toBe(200);
    expectError(await getSeries(series._id), 404, m.notFound);
    expect(await seriesOfPost(kept._id)).toEqual({ series_id: null, series_position: null });
    expect(await auditOf(series._id)).toEqual([
      ["series.delete", admin.id, "series", "Spam series"],
    ]);
  });

  it("goes with its writer's account", async () => {
    const leaving = await buildUser(server, api);
    const series = await addSeries(leaving, { title: "Farewell" });
    await orderSeries(series._id, leaving, [await post(leaving)]);
    const stays = await addSeries(other);
    const reply = await api.delete(`/api/users/profile/${leaving.id}`, { token: leaving.token });
    expect(reply.status, reply.text).toBe(200);
    expectError(await getSeries(series._id), 404, m.notFound);
    const left = await seriesRows();
    expect(left.map((row) => row.id)).not.toContain(series._id);
    expect(left.map((row) => row.id)).toContain(stays._id);
  });
});

/** The audit log's entries about one target: action, actor, kind and summary. */
async function auditOf(id: string) {
  const reply = await api.get<
    { action: string; actor: { _id: string }; target: Record<string, string> }[]
  >("/api/admin/audit", { token: admin.token });
  expect(reply.status).toBe(200);
  return reply.body
    .filter((entry) => entry.target._id === id)
    .map(({ action, actor, target }) => [action, actor._id, target.kind, target.summary]);
}
