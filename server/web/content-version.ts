import type { Redis } from "ioredis";

/**
 * A number that moves on whenever content may have changed (any write that may have committed).
 * Shared renders are tagged with the version they started under and dropped once it moves on.
 * With Redis every instance reads the same counter, so a write through one invalidates the pages
 * of all.
 */
export interface ContentVersion {
  /** The version now, or undefined when it cannot be known (nothing is then shared). */
  current(): Promise<string | undefined>;
  bump(): Promise<void>;
}

/** `PAGE_CACHE=off`: the version is never known, so every page and read is made afresh. */
export const unknownContentVersion: ContentVersion = {
  current: () => Promise.resolve(undefined),
  bump: () => Promise.resolve(),
};

export function memoryContentVersion(): ContentVersion {
  let version = 0;
  return {
    current: () => Promise.resolve(String(version)),
    bump: () => {
      version += 1;
      return Promise.resolve();
    },
  };
}

/**
 * A counter that is lost (Redis restarted, the key evicted) starts again from the clock in
 * microseconds, never from 0: counting up from 0 would, after a few writes, reach a number that
 * renders kept before the loss are still tagged with, and they would be served as current.
 */
const SEEDED = `
if redis.call('EXISTS', KEYS[1]) == 0 then redis.call('SET', KEYS[1], ARGV[1]) end
if ARGV[2] == 'bump' then return redis.call('INCR', KEYS[1]) end
return redis.call('GET', KEYS[1])
`;

export function redisContentVersion(
  redis: Redis,
  key: string,
  onError: (error: unknown) => void,
): ContentVersion {
  const seed = () => String(Date.now() * 1000);
  return {
    current: async () => {
      try {
        // The common case is one GET; the script runs only when the counter is missing.
        const version = await redis.get(key);
        return version ?? String(await redis.eval(SEEDED, 1, key, seed(), "read"));
      } catch (error) {
        onError(error);
        return undefined;
      }
    },
    bump: async () => {
      await redis.eval(SEEDED, 1, key, seed(), "bump");
    },
  };
}
