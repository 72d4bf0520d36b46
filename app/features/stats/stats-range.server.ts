import type { StatsRange } from "../../../contract/stats.js";
import { DomainError } from "../../../core/shared/errors.js";
import { readStatsRange } from "../../../core/stats/stats-service.js";

/**
 * The range a stats page asks for (`?days=7|30|90`, 30 when left out), by the API's own rule; or
 * undefined for any other, which the page answers with a 400 offering the ranges there are.
 */
export function statsRangeOf(request: Request): StatsRange | undefined {
  try {
    // A repeated `days` is refused, as the API refuses it (the first or last would be a guess).
    const days = new URL(request.url).searchParams.getAll("days");
    return readStatsRange(days.length === 0 ? {} : { days: days.length === 1 ? days[0] : days });
  } catch (error) {
    if (error instanceof DomainError && error.kind === "invalid") return undefined;
    throw error;
  }
}
