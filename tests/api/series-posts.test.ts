import { randomUUID } from "node:crypto";
import { extractFromJson, extractFromXml } from "@extractus/feed-extractor";
import { describe, expect, it } from "vitest";
import { SERIES_POSTS_MAX, seriesMessages as m } from "../../contract/series.js";
import type { TestUser } from "../support/factories.js";
import { pngImage } from "../support/images.js";
import {
  addPost,
  postRows,
  POST_SUMMARY_KEYS,
  type PostDetail,
  type PostSummary,
} from "../support/post-fixtures.js";
import { expectError, placesOf, seriesCalls } from "../support/series-fixtures.js";
import { failOnServerErrors } from "../support/server-errors.js";
import { openTestSite } from "../support/site.js";

// What a post says of its series (DESIGN.md 11, "Pages and series"; decision 032): `series` on
// every post object, numbered as readers see the series; a post's `series` field on create and
// edit; the series' feeds. The series' own routes: tests/api/series.test.ts.

const {
  server,
  api,
  users: { writer, other },
} = await openTestSite({ users: ["writer", "other"], categories: ["Lessons"] });

failOnServerErrors(() => server);

const { addSeries, getSeries, orderSeries, deleteSeries } = seriesCalls(api);

let posted = 0;
/** A post of `user`'s (published unless said otherwise), titled in order of making. */
function post(
  user: TestUser,
  fields: { status?: string; publishAt?: string; series?: string; title?: string } = {},
) {
  posted += 1;
  return addPost(api, user, {
    title: `Lesson ${String(posted)}`,
    category: "Lessons",
    ...fields,
  });
}

const readPost = (id: string, user?: TestUser) =>
  api.get<PostDetail>(`/api/posts/${id}`, { token: user?.token });
const editPost = (id: string, fields: Record<string, unknown>, user: TestUser = writer) =>
  api.put<PostDetail>(`/api/posts/${id}`, fields, { token: user.token });
const postRow = (id: string) =>
  server.app.deps.db.selectFrom("posts").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

/** The series' posts as readers (or `user`) see them, `title n/m` each. */
const seriesPlaces = async (id: string, user?: TestUser) =>
  placesOf((await getSeries(id, user)).body.posts);

describe("a post's series field: refusals", () => {
  /** Values of `series` that name none of the writer's series. */
  async function foreignSeries() {
    const theirs = await addSeries(other);
    return [theirs._id, randomUUID(), "abc", "1 OR 1=1", "x".repeat(65)];
  }

  it("refuses, on a new post, any series that is not the writer's, storing nothing", async () => {
    for (const series of await foreignSeries()) {
      const count = await postRows(server);
      const reply = await api.form(
        "POST",
        "/api/posts",
        {
          fields: { title: "Stray", category: "Lessons", description: "Words.", series },
          file: { bytes: await pngImage(), filename: "photo.png" },
        },
        { token: writer.token },
      );
      expectError(reply, 400, m.seriesUnknown, "series");
      expect(await postRows(server)).toBe(count);
    }
  });

  it("refuses, on an edit, any series that is not the writer's, changing nothing", async () => {
    const series = await addSeries(writer);
    const kept = await post(writer, { series: series._id });
    const before = await postRow(kept._id);
    for (const value of [...(await foreignSeries()), 42, ["a"], { id: series._id }]) {
      expectError(await editPost(kept._id, { series: value }), 400, m.seriesUnknown, "series");
    }
    expect(await postRow(kept._id)).toEqual(before);
  });
});

describe("a post's series field", () => {
  it("puts a new post last in the series, a draft too", async () => {
    const series = await addSeries(writer, { title: "Growing" });
    const first = await post(writer, { series: series._id });
    expect(first.series).toEqual({ _id: series._id, title: "Growing", position: 1, total: 1 });
    const draft = await post(writer, { series: series._id, status: "draft" });
    expect(draft.series).toMatchObject({ position: 2, total: 2 });
    const third = await post(writer, { series: series._id });
    expect(third.series).toMatchObject({ position: 2, total: 2 });
    expect(await seriesPlaces(series._id, writer)).toEqual([
      `${first.title} 1/2`,
      `${draft.title} 2/3`,
      `${third.title} 2/2`,
    ]);
    // An empty value is none.
    expect((await post(writer, { series: "" })).series).toBeNull();
  });

  it("moves a post to the end of another series, keeps its place, or takes it out", async () => {
    const from = await addSeries(writer, { title: "From" });
    const to = await addSeries(writer, { title: "To" });
    const [a, b] = [await post(writer, { series: from._id }), await post(writer)];
    const c = await post(writer, { series: to._id });
    await orderSeries(from._id, writer, [b, a]);

    const moved = await editPost(b._id, { series: to._id });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.series).toEqual({ _id: to._id, title: "To", position: 2, total: 2 });
    expect(await seriesPlaces(from._id)).toEqual([`${a.title} 1/1`]);
    // Named again, it stays where the writer put it; a plain edit leaves it there too.
    await orderSeries(to._id, writer, [b, c]);
    expect((await editPost(b._id, { series: to._id })).body.series?.position).toBe(1);
    const plain = { title: "Renamed", category: "Lessons", description: "New words." };
    expect((await editPost(b._id, plain)).body.series?.position).toBe(1);

    for (const none of ["", null, " "]) {
      await orderSeries(to._id, writer, [b, c]);
      const out = await editPost(b._id, { series: none });
      expect(out.status, out.text).toBe(200);
      expect(out.body.series).toBeNull();
      expect(await seriesPlaces(to._id)).toEqual([`${c.title} 1/1`]);
    }
  });
});

describe("a full series", () => {
  it(`holds ${String(SERIES_POSTS_MAX)} posts: no more join it by their series field`, async () => {
    const series = await addSeries(writer);
    const first = await post(writer, { series: series._id });
    // The rest as rows of their own, copies of the first: a hundred uploads prove nothing more.
    const row = await postRow(first._id);
    const copies = Array.from({ length: SERIES_POSTS_MAX - 1 }, (_, i) => ({
      ...row,
      id: randomUUID(),
      title: `Copy ${String(i + 2)}`,
      series_position: i + 2,
    }));
    await server.app.deps.db.insertInto("posts").values(copies).execute();
    const full = await orderSeries(series._id, writer, [
      ...copies.map((c) => ({ _id: c.id })),
      first,
    ]);
    expect(full.posts).toHaveLength(SERIES_POSTS_MAX);
    expect(full.posts.at(-1)?.series).toMatchObject({ position: 100, total: 100 });

    const count = await postRows(server);
    const reply = await api.form(
      "POST",
      "/api/posts",
      {
        fields: {
          title: "One too many",
          category: "Lessons",
          description: "Words.",
          series: series._id,
        },
        file: { bytes: await pngImage(), filename: "photo.png" },
      },
      { token: writer.token },
    );
    expectError(reply, 400, m.postsTooMany, "series");
    expect(await postRows(server)).toBe(count);
    const outside = await post(writer);
    expectError(await editPost(outside._id, { series: series._id }), 400, m.postsTooMany, "series");
    expect((await postRow(outside._id)).series_id).toBeNull();
    // A post already in it keeps its place when its series is named again.
    const again = await editPost(first._id, { series: series._id });
    expect(again.status, again.text).toBe(200);
    expect(again.body.series).toMatchObject({ position: 100, total: 100 });
  });
});

describe("a post's place in every post object", () => {
  it("is on the post, in lists and in the writer's drafts, as readers number it", async () => {
    const series = await addSeries(writer, { title: "Tour" });
    const first = await post(writer, { series: series._id });
    const draft = await post(writer, { series: series._id, status: "draft" });
    const last = await post(writer, { series: series._id });
    const outside = await post(writer);
    const place = (position: number, total: number) => ({
      _id: series._id,
      title: "Tour",
      position,
      total,
    });

    for (const user of [undefined, other, writer]) {
      expect((await readPost(last._id, user)).body.series).toEqual(place(2, 2));
      expect((await readPost(outside._id, user)).body.series).toBeNull();
    }
    expect((await readPost(draft._id, writer)).body.series).toEqual(place(2, 3));

    const list = await api.get<PostSummary[]>("/api/posts");
    expect(list.status).toBe(200);
    for (const item of list.body) expect(Object.keys(item).sort()).toEqual(POST_SUMMARY_KEYS);
    const listed = (id: string) => list.body.find((item) => item._id === id)?.series;
    expect(listed(first._id)).toEqual(place(1, 2));
    expect(listed(last._id)).toEqual(place(2, 2));
    expect(listed(outside._id)).toBeNull();

    const drafts = await api.get<PostSummary[]>("/api/users/me/posts?status=draft", {
      token: writer.token,
    });
    expect(drafts.status).toBe(200);
    expect(drafts.body.find((item) => item._id === draft._id)?.series).toEqual(place(2, 3));
  });

  it("renumbers the rest when a part is deleted, unpublished or published again", async () => {
    const series = await addSeries(writer);
    const [a, b, c] = [
      await post(writer, { series: series._id }),
      await post(writer, { series: series._id }),
      await post(writer, { series: series._id }),
    ];
    expect(await seriesPlaces(series._id)).toEqual([
      `${a.title} 1/3`,
      `${b.title} 2/3`,
      `${c.title} 3/3`,
    ]);
    const deleted = await api.delete(`/api/posts/${b._id}`, { token: writer.token });
    expect(deleted.status, deleted.text).toBe(200);
    expect(await seriesPlaces(series._id)).toEqual([`${a.title} 1/2`, `${c.title} 2/2`]);

    expect((await editPost(a._id, { status: "draft" })).status).toBe(200);
    expect(await seriesPlaces(series._id)).toEqual([`${c.title} 1/1`]);
    expect((await readPost(c._id)).body.series).toMatchObject({ position: 1, total: 1 });
    expect(await seriesPlaces(series._id, writer)).toEqual([`${a.title} 1/2`, `${c.title} 1/1`]);

    expect((await editPost(a._id, { status: "published" })).status).toBe(200);
    expect(await seriesPlaces(series._id)).toEqual([`${a.title} 1/2`, `${c.title} 2/2`]);
  });
});

describe("a series' feeds", () => {
  const FEEDS = ["/rss.xml", "/feed.json"];
  const at = (path: string) => `${server.config.publicUrl}${path}`;

  async function feedOf(path: string) {
    const reply = await api.get(path);
    expect(reply.status, reply.text).toBe(200);
    const feed = path.startsWith("/rss.xml")
      ? extractFromXml(reply.text)
      : extractFromJson(reply.text);
    const { title, link, description } = feed;
    return { title, link, description, titles: (feed.entries ?? []).map((e) => e.title) };
  }

  it("list its published parts alone, newest first, whatever their order", async () => {
    const series = await addSeries(writer, { title: "Sea <&> rail" });
    const first = await post(writer, { series: series._id });
    await post(writer, { series: series._id, status: "draft" });
    const second = await post(writer, { series: series._id });
    await post(writer, {
      series: series._id,
      title: "Too soon",
      status: "scheduled",
      publishAt: new Date(Date.now() + 86_400_000).toISOString(),
    });
    await post(writer, { title: "Not in it" });
    await orderSeries(series._id, writer, [second, first]);
    for (const feed of FEEDS) {
      expect(await feedOf(`${feed}?series=${series._id}`)).toEqual({
        title: `${server.config.site.title} — Sea <&> rail`,
        link: at(`/series/${series._id}`),
        description: `Posts in the series Sea <&> rail on ${server.config.site.title}.`,
        titles: [second.title, first.title],
      });
    }
  });

  it("are empty for a series with nothing published, and 404 for none", async () => {
    const series = await addSeries(writer);
    await post(writer, { series: series._id, status: "draft" });
    const gone = await addSeries(writer);
    expect((await deleteSeries(gone._id, writer)).status).toBe(200);
    for (const feed of FEEDS) {
      expect((await feedOf(`${feed}?series=${series._id}`)).titles).toEqual([]);
      for (const id of [gone._id, randomUUID(), "abc", "1%20OR%201=1", "..%2F..%2Fetc"]) {
        const reply = await api.get(`${feed}?series=${id}`);
        expect(reply.status, `${feed}?series=${id}`).toBe(404);
        expect(reply.body).toEqual({ message: "Not found" });
      }
      const empty = await api.get<{ message: string }>(`${feed}?series=`);
      expect(empty.status).toBe(400);
      expect(empty.body.message).toMatch(/series must not be empty/);
    }
  });
});
