import { updatePost } from "../../core/posts/posts-service.js";
import { autosaveAnswer } from "../features/posts/autosave.server.js";
import type { Route } from "./+types/post-autosave";

/**
 * A draft saving itself while its writer types in the full editor (a resource route, JSON only;
 * decision 022): the editor's fields without a state, as an edit of the draft that was last saved
 * at `updatedAt`. Answers the new `updatedAt`, or why it was not saved (the text stays in the
 * browser either way).
 */
export async function action({ request, context }: Route.ActionArgs) {
  return autosaveAnswer(request, context, (actor, { postId = "", updatedAt = "", ...fields }) =>
    updatePost(context.deps, actor, postId, fields, {
      autosave: { expectedUpdatedAt: updatedAt },
    }),
  );
}

/** Asked for as a page: there is nothing to see here. */
export function loader() {
  return new Response(null, { status: 405, headers: { allow: "POST" } });
}
