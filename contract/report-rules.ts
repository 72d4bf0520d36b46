// What a report may say, without zod (moderation.ts re-exports it): the report menu on every post.

export const REPORT_REASONS = ["spam", "harassment", "other"] as const;
export const REPORT_ACTIONS = ["dismiss", "remove", "suspend"] as const;
export const REPORT_NOTE_MAX = 500;
