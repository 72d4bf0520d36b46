import { previewPostBody } from "../../core/posts/preview.js";
import { attempt, formFields } from "../features/forms/action.server.js";
import type { Route } from "./+types/post-preview";

/**
 * The editor's Preview tab (a resource route, JSON only): the body rendered by the code that
 * renders it when the post is saved, so the Markdown renderer never ships to the browser. Signed
 * in (the site's session), limited per address like the other writes that render.
 */
export async function action({ request, context }: Route.ActionArgs) {
  const viewer = context.viewer;
  if (!viewer) {
    return Response.json({ message: "Please log in to preview a post" }, { status: 401 });
  }
  const tooMany = await context.limit("preview");
  if (tooMany) return Response.json({ message: tooMany }, { status: 429 });
  const fields = await formFields(request);
  const result = await attempt(() => previewPostBody(context.deps, viewer.actor, fields));
  return result.ok
    ? Response.json(result.value, { headers: { "cache-control": "no-store" } })
    : Response.json({ message: result.message, errors: result.errors }, { status: result.status });
}

/** Asked for as a page: there is nothing to see here. */
export function loader() {
  return new Response(null, { status: 405, headers: { allow: "POST" } });
}
