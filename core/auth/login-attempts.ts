import { createHash } from "node:crypto";
import type { Redis } from "ioredis";
import type { Clock } from "../shared/clock.js";
import { tooManyAttempts } from "../shared/errors.js";

/** Sign-in attempts one account may fail, from any address, before it is refused for a while. */
export const LOGIN_FAILURES_MAX = 5;
export const LOGIN_FAILURES_WINDOW_MS = 15 * 60_000;

/**
 * Counts attempts per key in a fixed window that starts with the first attempt. `hit` counts and
 * reads in one step, so attempts sent at the same moment cannot all slip under the limit.
 */
export interface AttemptCounter {
  hit(key: string, windowMs: number): Promise<{ count: number; resetInMs: number }>;
  clear(key: string): Promise<void>;
}

/** `RATE_LIMITS=off`: test suites and benchmarks sign in as often as they like. */
export const uncountedAttempts: AttemptCounter = {
  hit: () => Promise.resolve({ count: 0, resetInMs: 0 }),
  clear: () => Promise.resolve(),
};

/** Past this many keys, expired windows are swept before a new key is added. */
const MEMORY_SWEEP_FROM = 10_000;

/** One process's counters, on the injected clock so tests can move time. */
export function memoryAttemptCounter(clock: Clock): AttemptCounter {
  const windows = new Map<string, { count: number; resetAt: number }>();
  // Doubles when a sweep frees little, so a flood of live keys is not swept on every attempt.
  let sweepAt = MEMORY_SWEEP_FROM;
  return {
    hit(key, windowMs) {
      const now = clock().getTime();
      let window = windows.get(key);
      if (!window || window.resetAt <= now) {
        if (windows.size >= sweepAt) {
          for (const [old, { resetAt }] of windows) if (resetAt <= now) windows.delete(old);
          sweepAt = Math.max(MEMORY_SWEEP_FROM, windows.size * 2);
        }
        window = { count: 0, resetAt: now + windowMs };
        windows.set(key, window);
      }
      window.count += 1;
      return Promise.resolve({ count: window.count, resetInMs: window.resetAt - now });
    },
    clear(key) {
      windows.delete(key);
      return Promise.resolve();
    },
  };
}

const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {count, redis.call('PTTL', KEYS[1])}
`;

/**
 * Counters every instance shares. Keys sit under `prefix` and `name` and carry a hash of the
 * counted key, so no e-mail address or IP address is written to Redis. While Redis cannot be
 * reached, `fallback` (this process's own counters) counts instead: each instance then limits on
 * its own, which is weaker than one shared count but far from no limit at all.
 */
export function redisAttemptCounter(
  redis: Redis,
  options: {
    prefix: string;
    name: string;
    fallback: AttemptCounter;
    onError: (error: unknown) => void;
  },
): AttemptCounter {
  const { prefix, name, fallback, onError } = options;
  const keyOf = (key: string) =>
    `${prefix}${name}:${createHash("sha256").update(key).digest("base64url")}`;
  return {
    async hit(key, windowMs) {
      try {
        const reply = await redis.eval(HIT_SCRIPT, 1, keyOf(key), String(windowMs));
        const [count, ttl] = Array.isArray(reply) ? reply.map(Number) : [];
        if (count === undefined || ttl === undefined) throw new Error("unexpected Redis reply");
        return { count, resetInMs: Math.max(0, ttl) };
      } catch (error) {
        onError(error);
        return fallback.hit(key, windowMs);
      }
    },
    async clear(key) {
      await Promise.all([redis.del(keyOf(key)).catch(onError), fallback.clear(key)]);
    },
  };
}

export const tooManyFailedLogins = (minutes: number) =>
  `Too many failed sign-in attempts for this account, please try again in ${String(minutes)} minute${minutes === 1 ? "" : "s"}`;

/**
 * Counts a sign-in attempt against the account before the password is checked (so parallel
 * guesses are counted too), and refuses it once the account has used up its attempts. The caller
 * clears the count when the password was right: only failures add up.
 */
export async function countLoginAttempt(counter: AttemptCounter, accountKey: string) {
  const { count, resetInMs } = await counter.hit(accountKey, LOGIN_FAILURES_WINDOW_MS);
  if (count > LOGIN_FAILURES_MAX) {
    const seconds = Math.max(1, Math.ceil(resetInMs / 1000));
    throw tooManyAttempts(tooManyFailedLogins(Math.ceil(seconds / 60)), seconds);
  }
}
