import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  commentsVersion,
  listStillCurrent,
  memoryContentVersion,
  postVersion,
  redisContentVersion,
  type ContentVersion,
} from "../../server/web/content-version.js";

// The content version every instance reads from Redis. Runs where REDIS_URL is given (CI's
// PostgreSQL pass), under a key of its own.
const redisUrl = process.env.REDIS_URL;
const key = `test-${Math.random().toString(36).slice(2, 10)}:content-version`;

describe.skipIf(!redisUrl)("the content version in Redis", () => {
  let redis: Redis;
  const errors: unknown[] = [];
  beforeAll(() => {
    redis = new Redis(redisUrl ?? "");
  });
  afterAll(async () => {
    await redis.del(key);
    await redis.quit();
  });

  it("moves on with every bump, and never comes back to a number it had before it was lost", async () => {
    const version = redisContentVersion(redis, key, (error) => errors.push(error));
    const first = Number(await version.current());
    expect(first).toBeGreaterThan(0);
    await version.bump();
    await version.bump();
    const before = Number(await version.current());
    expect(before).toBe(first + 2);

    // Redis restarted without its data, or evicted the key: counting starts from the clock,
    // past every number renders kept before the loss can carry.
    await redis.del(key);
    const after = Number(await version.current());
    expect(after).toBeGreaterThan(before);
    await redis.del(key);
    await version.bump();
    expect(Number(await version.current())).toBeGreaterThan(before);
    expect(errors).toEqual([]);
  });
});

// A post's likes and comments move that post on alone (decision 021), in memory and in Redis.
const versions: [string, () => { version: ContentVersion; lose?: () => Promise<unknown> }][] = [
  ["in memory", () => ({ version: memoryContentVersion() })],
];
if (redisUrl) {
  const redis = new Redis(redisUrl);
  const scoped = `test-${Math.random().toString(36).slice(2, 10)}:scoped-version`;
  afterAll(async () => {
    await redis.del(scoped, `${scoped}:posts`);
    await redis.quit();
  });
  versions.push([
    "in Redis",
    () => ({
      version: redisContentVersion(redis, scoped, (error) => {
        throw error;
      }),
      lose: () => redis.del(`${scoped}:posts`),
    }),
  ]);
}

describe.each(versions)("the content version %s", (_name, make) => {
  it("moves a post on alone when its likes or comments change, and everything when the site does", async () => {
    const { version, lose } = make();
    const first = await version.state(["a", "b"]);
    if (!first) throw new Error("no state");
    const forA = async () => {
      const state = await version.state(["a"]);
      if (!state) throw new Error("no state");
      return postVersion(state);
    };
    const aBefore = await forA();

    await version.bump({ postId: "a" });
    const second = await version.state(["a", "b"]);
    if (!second) throw new Error("no state");
    expect(second.site).toBe(first.site);
    expect(await version.current()).toBe(first.site);
    expect(await forA()).not.toBe(aBefore);
    // A list made before the change shows "a" stale and "b" current; one made after, both.
    expect(listStillCurrent(first.count, second)).toBe(false);
    expect(second.last[1]).toBeLessThanOrEqual(first.count);
    expect(listStillCurrent(second.count, second)).toBe(true);

    // Only a change of its comments moves what a post's comments are kept under (decision 029).
    const comments = async () => commentsVersion((await version.state(["a"])) ?? second);
    const commentsBefore = await comments();
    await version.bump({ postId: "a" });
    expect(await comments()).toBe(commentsBefore);
    await version.bump({ postId: "a", comments: true });
    const commentsNow = await comments();
    expect(commentsNow).not.toBe(commentsBefore);
    const both = await version.state(["b", "a"]);
    expect(both?.lastComments[0]).toBe(0);

    const aNow = await forA();
    await version.bump();
    expect(await comments()).not.toBe(commentsNow);
    const third = await version.state(["a", "b"]);
    expect(third?.site).not.toBe(first.site);
    expect(await forA()).not.toBe(aNow);

    if (lose) {
      // The posts' count lost (Redis restarted, the hash evicted): nothing kept before matches.
      await version.bump({ postId: "b" });
      const before = await version.state(["b"]);
      await lose();
      const after = await version.state(["b"]);
      expect(after?.epoch).not.toBe(before?.epoch);
    }
  });
});
