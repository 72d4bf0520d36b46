import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisContentVersion } from "../../server/web/content-version.js";

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
