import type { Redis } from "ioredis";

/**
 * A number that moves on whenever content may have changed (any successful write). Shared renders
 * are tagged with the version they started under and dropped once it moves on. With Redis every
 * instance reads the same counter, so a write through one invalidates the pages of all.
 */
export interface ContentVersion {
  /** The version now, or undefined when it cannot be known (nothing is then shared). */
  current(): Promise<string | undefined>;
  bump(): Promise<void>;
}

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

export function redisContentVersion(
  redis: Redis,
  key: string,
  onError: (error: unknown) => void,
): ContentVersion {
  return {
    current: async () => {
      try {
        return (await redis.get(key)) ?? "0";
      } catch (error) {
        onError(error);
        return undefined;
      }
    },
    bump: async () => {
      await redis.incr(key);
    },
  };
}
