import { dailyCsv, READER_CSV_COLUMNS, writerStats } from "../../core/stats/stats-service.js";
import { requireViewer } from "../features/auth/guards.server.js";
import { statsCsv } from "../features/stats/stats-export.server.js";
import type { Route } from "./+types/stats-export";

/** The writer's numbers a day as a CSV file (issue 37): the Stats page's Download CSV. */
export async function loader({ context, request }: Route.LoaderArgs) {
  const viewer = requireViewer(context, "/stats");
  return statsCsv(request, "stats", async (days) => {
    const stats = await writerStats(context.deps, viewer.actor.id, days);
    return dailyCsv(stats.daily, READER_CSV_COLUMNS);
  });
}
