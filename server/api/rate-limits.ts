import type { FastifyContextConfig } from "fastify";

const MINUTE = 60_000;

/** Per-address limits on the routes people abuse; `RATE_LIMITS=off` turns them all off. */
export const limits = {
  login: { rateLimit: { max: 10, timeWindow: 15 * MINUTE } },
  register: { rateLimit: { max: 10, timeWindow: 60 * MINUTE } },
  resetLink: { rateLimit: { max: 5, timeWindow: 60 * MINUTE } },
  upload: { rateLimit: { max: 30, timeWindow: 15 * MINUTE } },
  comment: { rateLimit: { max: 30, timeWindow: 5 * MINUTE } },
  like: { rateLimit: { max: 120, timeWindow: 5 * MINUTE } },
} satisfies Record<string, FastifyContextConfig>;

export type LimitName = keyof typeof limits;
