import { newsletterSubscribersPath } from "../../contract/page-paths.js";
import { subscribersCsv } from "../../core/newsletter/owners.js";
import { requireViewer } from "../features/auth/guards.server.js";
import type { Route } from "./+types/subscribers-export";

/**
 * The subscribers page's Download CSV (decision 028): the same file as the API's, for the signed-in
 * member's session (the API takes a bearer token, which a page's link cannot send).
 */
export async function loader({ context, request }: Route.LoaderArgs) {
  const viewer = requireViewer(context, newsletterSubscribersPath);
  const asked = new URL(request.url).searchParams;
  const lines = await subscribersCsv(context.deps, viewer.actor, {
    status: asked.get("status") ?? "",
    q: asked.get("q") ?? "",
  });
  const bytes = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await lines.next();
      if (next.done) controller.close();
      else controller.enqueue(bytes.encode(next.value));
    },
  });
  return new Response(body, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": 'attachment; filename="subscribers.csv"',
      "cache-control": "private, no-store",
    },
  });
}
