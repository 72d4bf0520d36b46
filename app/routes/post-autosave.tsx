import { updatePost } from "../../core/posts/posts-service.js";
import { attempt, formFields } from "../features/forms/action.server.js";
import type { Route } from "./+types/post-autosave";

/**
 * A draft saving itself while its writer types in the full editor (a resource route, JSON only;
 * decision 022): the editor's fields without a state, as an edit of the draft that was last saved
 * at `updatedAt`. Answers the new `updatedAt`, or why it was not saved (the text stays in the
 * browser either way).
 */
export async function action({ request, context }: Route.ActionArgs) {
  const viewer = context.viewer;
  if (!viewer) {
    return Response.json({ message: "Please log in to save this draft" }, { status: 401 });
  }
  const tooMany = await context.limit("autosave");
  if (tooMany) return Response.json({ message: tooMany }, { status: 429 });
  const { postId = "", updatedAt = "", ...fields } = await formFields(request);
  const result = await attempt(() =>
    updatePost(context.deps, viewer.actor, postId, fields, {
      autosave: { expectedUpdatedAt: updatedAt },
    }),
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
