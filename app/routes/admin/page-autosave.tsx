import { updatePage } from "../../../core/pages/pages-service.js";
import { autosaveAnswer } from "../../features/posts/autosave.server.js";
import type { Route } from "./+types/page-autosave";

/**
 * A draft page saving itself while an admin types in its editor (decision 032; the posts' own is
 * routes/post-autosave.tsx): the editor's fields without a status, as an edit of the draft last
 * saved at `updatedAt`. Admins alone (updatePage says 403 to anyone else).
 */
export async function action({ request, context }: Route.ActionArgs) {
  return autosaveAnswer(request, context, (actor, { pageId = "", ...fields }) =>
    updatePage(context.deps, actor, pageId, fields, { autosave: true }),
  );
}

/** Asked for as a page: there is nothing to see here. */
export function loader() {
  return new Response(null, { status: 405, headers: { allow: "POST" } });
}
