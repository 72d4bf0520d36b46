import { dailyCsv, SITE_CSV_COLUMNS, siteStats } from "../../../core/stats/stats-service.js";
import { requireAdminOrRefuse } from "../../features/admin/guard.server.js";
import { statsCsv } from "../../features/stats/stats-export.server.js";
import type { Route } from "./+types/stats-export";

/**
 * The site's numbers a day as a CSV file (issue 50): the admin's Stats page's Download CSV, refused
 * as the page is (a member 403, a visitor sent home).
 */
export async function loader({ context, request }: Route.LoaderArgs) {
  const { actor } = requireAdminOrRefuse(context);
  return statsCsv(request, "site-stats", async (days) => {
    const stats = await siteStats(context.deps, actor, days);
    return dailyCsv(stats.daily, SITE_CSV_COLUMNS);
  });
}
