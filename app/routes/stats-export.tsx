import { statsMessages } from "../../contract/stats.js";
import { dailyCsv, writerStats } from "../../core/stats/stats-service.js";
import { requireViewer } from "../features/auth/guards.server.js";
import { statsRangeOf } from "../features/stats/stats-range.server.js";
import type { Route } from "./+types/stats-export";

/** The writer's numbers a day as a CSV file (issue 37): the Stats page's Download CSV. */
export async function loader({ context, request }: Route.LoaderArgs) {
  const viewer = requireViewer(context, "/stats");
  const days = statsRangeOf(request);
  if (days === undefined) {
    // As the API says it: whoever asks for the file by hand reads the same message.
    return new Response(`${statsMessages.days}\n`, {
      status: 400,
      headers: { "content-type": "text/plain; charset=utf-8" },
    });
  }
  const stats = await writerStats(context.deps, viewer.actor.id, days);
  return new Response(dailyCsv(stats.daily), {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="stats-${String(days)}d.csv"`,
      // One writer's numbers: never kept by a cache between them and the site.
      "cache-control": "private, no-store",
    },
  });
}
