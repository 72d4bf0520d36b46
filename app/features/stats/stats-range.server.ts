import type { StatsRange } from "../../../contract/stats.js";
import { DomainError } from "../../../core/shared/errors.js";
import { readStatsRange } from "../../../core/stats/stats-service.js";

/**
 * The range a stats page asks for (`?days=7|30|90`, 30 when left out), by the API's own rule; or
 * undefined for any other, which the page answers with a 400 offering the ranges there are.
 */
export function statsRangeOf(request: Request): StatsRange | undefined {
  try {
    return readStatsRange(Object.fromEntries(new URL(request.url).searchParams));
  } catch (error) {
    if (error instanceof DomainError && error.kind === "invalid") return undefined;
    throw error;
  }
}
