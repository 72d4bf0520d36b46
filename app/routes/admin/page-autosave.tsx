import { updatePage } from "../../../core/pages/pages-service.js";
import { attempt, formFields } from "../../features/forms/action.server.js";
import type { Route } from "./+types/page-autosave";

/**
 * A draft page saving itself while an admin types in its editor (decision 032; the posts' own is
 * routes/post-autosave.tsx): the editor's fields without a status, as an edit of the draft last
 * saved at `updatedAt`. Answers the new `updatedAt`, or why it was not saved (the text stays in
 * the browser either way). Admins alone (updatePage says 403 to anyone else).
 */
export async function action({ request, context }: Route.ActionArgs) {
  const viewer = context.viewer;
  if (!viewer) {
    return Response.json({ message: "Please log in to save this draft" }, { status: 401 });
  }
  const tooMany = await context.limit("autosave");
  if (tooMany) return Response.json({ message: tooMany }, { status: 429 });
  const { pageId = "", ...fields } = await formFields(request);
  const result = await attempt(() =>
    updatePage(context.deps, viewer.actor, pageId, fields, { autosave: true }),
  );
  return result.ok
    ? Response.json(
        { updatedAt: result.value.updatedAt },
        { headers: { "cache-control": "no-store" } },
      )
    : Response.json({ message: result.message, errors: result.errors }, { status: result.status });
}

/** Asked for as a page: there is nothing to see here. */
export function loader() {
  return new Response(null, { status: 405, headers: { allow: "POST" } });
}
