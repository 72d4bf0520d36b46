import { redirect } from "react-router";
import { toggleBookmark } from "../../core/bookmarks/bookmarks-service.js";
import { toggleAction } from "../features/reading/toggle-action.server.js";
import type { Route } from "./+types/bookmark";

/** Only a form posts here; a visit goes home. */
export const loader = () => redirect("/");

/** The Save buttons' action (decision 016). */
export const action = ({ request, context }: Route.ActionArgs) =>
  toggleAction(request, context, "bookmark", (actor, { postId }) =>
    toggleBookmark(context.deps, actor, postId ?? ""),
  );
