import { statsMessages, type StatsRange } from "../../../contract/stats.js";
import { statsRangeOf } from "./stats-range.server.js";

/**
 * A stats page's Download CSV (a resource route): its range read as the page reads it (another is
 * a 400 with the API's message, for whoever asks for the file by hand), the file named for it.
 * `read` makes the file once the caller may have it; what it throws is the page's answer too.
 */
export async function statsCsv(
  request: Request,
  name: string,
  read: (days: StatsRange) => Promise<string>,
) {
  const days = statsRangeOf(request);
  if (days === undefined) {
    return new Response(`${statsMessages.days}\n`, {
      status: 400,
      headers: { "content-type": "text/plain; charset=utf-8" },
    });
  }
  return new Response(await read(days), {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="${name}-${String(days)}d.csv"`,
      // A member's numbers: never kept by a cache between them and the site.
      "cache-control": "private, no-store",
    },
  });
}
