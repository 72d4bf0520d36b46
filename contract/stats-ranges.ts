// Without zod (stats.ts re-exports it): the stats link on a post page.

/** The ranges a stats call or page takes, in days (today included, UTC). */
export const STATS_RANGES = [7, 30, 90] as const;
export type StatsRange = (typeof STATS_RANGES)[number];
export const DEFAULT_STATS_RANGE: StatsRange = 30;
