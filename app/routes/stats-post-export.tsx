import { data } from "react-router";
import { postStatsPath } from "../../contract/page-paths.js";
import { DomainError } from "../../core/shared/errors.js";
import { dailyCsv, postWithStats, READER_CSV_COLUMNS } from "../../core/stats/stats-service.js";
import { requireViewer } from "../features/auth/guards.server.js";
import { statsCsv } from "../features/stats/stats-export.server.js";
import type { Route } from "./+types/stats-post-export";

/**
 * One post's numbers a day as a CSV file (issue 50), as its stats page: for its author and admins;
 * anyone else gets the 404 the page gives them.
 */
export async function loader({ context, params, request }: Route.LoaderArgs) {
  const viewer = requireViewer(context, postStatsPath(params.id));
  // Named by the post's id, which postWithStats has found by then (an id is [0-9a-f-]).
  return statsCsv(request, `stats-${params.id}`, async (days) => {
    try {
      const { stats } = await postWithStats(context.deps, viewer.actor, params.id, days);
      return dailyCsv(stats.daily, READER_CSV_COLUMNS);
    } catch (error) {
      if (error instanceof DomainError && error.kind === "not_found") {
        throw data(null, { status: 404 });
      }
      throw error;
    }
  });
}
