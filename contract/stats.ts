import { z } from "./zod.js";
import { DEFAULT_STATS_RANGE, STATS_RANGES, type StatsRange } from "./stats-ranges.js";

// Writers' stats (DESIGN.md 10, "Writers' stats"; decision 026).

export * from "./stats-ranges.js";
/** The most read posts and the referring hosts a stats answer lists. */
export const STATS_POSTS_MAX = 50;
export const STATS_REFERRERS_MAX = 20;

export const statsMessages = {
  days: `days must be one of ${STATS_RANGES.join(", ")}`,
  postNotFound: "Post not found",
} as const;

const rangeText = STATS_RANGES.map(String) as [string, ...string[]];

/** `?days=7|30|90` (30 when left out). */
export const StatsQuerySchema = z.object({
  days: z
    .enum(rangeText, { error: statsMessages.days })
    .optional()
    .transform((days): StatsRange =>
      days === undefined ? DEFAULT_STATS_RANGE : (Number(days) as StatsRange),
    ),
});
