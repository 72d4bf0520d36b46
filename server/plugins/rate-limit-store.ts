import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from "@fastify/rate-limit";
import type { AttemptCounter } from "../../core/auth/login-attempts.js";

/**
 * A store for @fastify/rate-limit that keeps every count in one counter, under the key alone.
 * The plugin's own stores keep a separate count for each route (a child store per route, or the
 * route in the Redis key), so a limit shared by several routes would be spent once per route.
 * With this one, a limit is one allowance per address wherever it is spent: any route, the API or
 * the page forms, any instance (when the counter is Redis).
 */
export function sharedLimitStore(counter: AttemptCounter): FastifyRateLimitStoreCtor {
  return class SharedLimitStore implements FastifyRateLimitStore {
    incr(
      key: string,
      callback: (error: Error | null, result?: { current: number; ttl: number }) => void,
      timeWindow: number,
    ) {
      counter.hit(key, timeWindow).then(
        ({ count, resetInMs }) => {
          callback(null, { current: count, ttl: resetInMs });
        },
        (error: unknown) => {
          callback(error instanceof Error ? error : new Error(String(error)));
        },
      );
    }

    child() {
      return this;
    }
  };
}
