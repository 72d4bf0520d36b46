import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { buildUser, type TestUser } from "../support/factories.js";
import { client } from "../support/http.js";
import {
  addPost,
  expectPostSummaryShape,
  type ErrorBody,
  type PostSummary,
} from "../support/post-fixtures.js";
import { openTestSite } from "../support/site.js";
import { startTestServer } from "../support/test-server.js";

/** Following writers and the feed of their posts (DESIGN.md 9, "Reading"; decision 016). */
const { server, api } = await openTestSite({ categories: ["Travel"] });

interface FollowAnswer {
  following: boolean;
  followersCount: number;
}

interface Profile {
  _id: string;
  followersCount: number;
  followingCount: number;
  followedByYou?: boolean;
}

const follow = (id: string, token?: string) =>
  api.put<FollowAnswer & ErrorBody>(`/api/users/follow/${encodeURIComponent(id)}`, undefined, {
    token,
  });

const feed = (token?: string, query = "") =>
  api.get<PostSummary[] & ErrorBody>(`/api/posts/feed${query}`, { token });

const profileOf = (id: string, token?: string) =>
  api.get<Profile>(`/api/users/profile/${id}`, { token });

async function followRows() {
  const row = await server.app.deps.db
    .selectFrom("follows")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe("PUT /api/users/follow/:id: refusals", () => {
  let reader: TestUser;
  let writer: TestUser;
  beforeAll(async () => {
    reader = await buildUser(server, api);
    writer = await buildUser(server, api);
  });

  it("answers 401 without a token or with one that is not a session", async () => {
    for (const token of [undefined, "x".repeat(43)]) {
      const reply = await follow(writer.id, token);
      expect(reply.status, reply.text).toBe(401);
    }
    expect(await followRows()).toBe(0);
  });

  it("answers 400 to following yourself, storing nothing", async () => {
    const reply = await follow(reader.id, reader.token);
    expect(reply.status, reply.text).toBe(400);
    expect(reply.body.message).toBe("You cannot follow yourself");
    expect(await followRows()).toBe(0);
  });

  it.each([randomUUID(), "abc", "1 OR 1=1", "' OR '1'='1"])("answers 404 for %j", async (id) => {
    const reply = await follow(id, reader.token);
    expect(reply.status, reply.text).toBe(404);
    expect(reply.body).toEqual({ message: "User not found" });
    expect(await followRows()).toBe(0);
  });

  it("answers 401 to the feed without a token and 400 to a bad page", async () => {
    expect((await feed()).status).toBe(401);
    const reply = await feed(reader.token, "?pageNumber=0");
    expect(reply.status, reply.text).toBe(400);
  });
});

describe("PUT /api/users/follow/:id", () => {
  it("follows on the first call and unfollows on the second, with the counts on profiles", async () => {
    const reader = await buildUser(server, api);
    const other = await buildUser(server, api);
    const writer = await buildUser(server, api);

    const followed = await follow(writer.id, reader.token);
    expect(followed.status, followed.text).toBe(200);
    expect(followed.body).toEqual({ following: true, followersCount: 1 });
    expect((await follow(writer.id, other.token)).body).toEqual({
      following: true,
      followersCount: 2,
    });

    const seen = await profileOf(writer.id, reader.token);
    expect(seen.body).toMatchObject({ followersCount: 2, followingCount: 0, followedByYou: true });
    const anonymous = await profileOf(writer.id);
    expect(anonymous.body).toMatchObject({ followersCount: 2, followingCount: 0 });
    expect(anonymous.body).not.toHaveProperty("followedByYou");
    expect((await profileOf(reader.id, reader.token)).body).toMatchObject({
      followersCount: 0,
      followingCount: 1,
      followedByYou: false,
    });

    const unfollowed = await follow(writer.id, reader.token);
    expect(unfollowed.body).toEqual({ following: false, followersCount: 1 });
    expect((await profileOf(writer.id, reader.token)).body).toMatchObject({
      followersCount: 1,
      followedByYou: false,
    });
  });

  it("counts each follower once when many follow at once", async () => {
    const writer = await buildUser(server, api);
    const fans: TestUser[] = [];
    for (let i = 0; i < 5; i += 1) fans.push(await buildUser(server, api));
    const replies = await Promise.all(fans.map((fan) => follow(writer.id, fan.token)));
    for (const reply of replies) expect(reply.body.following, reply.text).toBe(true);
    expect((await profileOf(writer.id)).body.followersCount).toBe(5);

    // The same pair toggled at once never stores two rows (the primary key).
    const reader = fans[0];
    if (!reader) throw new Error("no fan");
    await Promise.all([1, 2, 3, 4].map(() => follow(writer.id, reader.token)));
    expect([4, 5]).toContain((await profileOf(writer.id)).body.followersCount);
  });
});

describe("GET /api/posts/feed", () => {
  it("lists the published posts of the followed writers, newest first, in pages of 6", async () => {
    const reader = await buildUser(server, api);
    const writer = await buildUser(server, api);
    const second = await buildUser(server, api);
    const stranger = await buildUser(server, api);
    expect((await feed(reader.token)).body).toEqual([]);

    await follow(writer.id, reader.token);
    await follow(second.id, reader.token);
    const titles: string[] = [];
    for (let i = 0; i < 4; i += 1) {
      titles.push(
        (await addPost(api, writer, { title: `W${String(i)}`, category: "Travel" })).title,
      );
      titles.push(
        (await addPost(api, second, { title: `S${String(i)}`, category: "Travel" })).title,
      );
    }
    await addPost(api, stranger, { title: "Not followed", category: "Travel" });
    await addPost(api, writer, { title: "A draft", category: "Travel", status: "draft" });

    const first = await feed(reader.token);
    expect(first.status, first.text).toBe(200);
    first.body.forEach(expectPostSummaryShape);
    const newestFirst = [...titles].reverse();
    expect(first.body.map((post) => post.title)).toEqual(newestFirst.slice(0, 6));
    const page2 = await feed(reader.token, "?pageNumber=2");
    expect(page2.body.map((post) => post.title)).toEqual(newestFirst.slice(6));

    // Someone else's feed is their own.
    expect((await feed(stranger.token)).body).toEqual([]);
  });
});

describe("deleting an account", () => {
  it("takes its follows with it, both ways", async () => {
    const leaving = await buildUser(server, api);
    const writer = await buildUser(server, api);
    const fan = await buildUser(server, api);
    await follow(writer.id, leaving.token);
    await follow(leaving.id, fan.token);
    const before = await followRows();

    const deleted = await api.delete(`/api/users/profile/${leaving.id}`, { token: leaving.token });
    expect(deleted.status, deleted.text).toBe(200);
    expect(await followRows()).toBe(before - 2);
    expect((await profileOf(writer.id)).body.followersCount).toBe(0);
    expect((await profileOf(fan.id)).body.followingCount).toBe(0);
  });
});

describe("rate limit", () => {
  it("stops follow toggles from one address after 60 in 5 minutes, storing nothing more", async () => {
    const limited = await startTestServer({ RATE_LIMITS: "on" });
    try {
      const limitedApi = client(limited.url);
      const reader = await buildUser(limited, limitedApi);
      const writer = await buildUser(limited, limitedApi);
      const toggle = () =>
        limitedApi.put(`/api/users/follow/${writer.id}`, undefined, { token: reader.token });
      for (let i = 0; i < 60; i += 1) expect((await toggle()).status).toBe(200);
      // 60 toggles: back to not following; the 61st would follow, and is refused.
      const refused = await toggle();
      expect(refused.status, refused.text).toBe(429);
      const rows = await limited.app.deps.db.selectFrom("follows").selectAll().execute();
      expect(rows).toEqual([]);
    } finally {
      await limited.close();
    }
  });
});
