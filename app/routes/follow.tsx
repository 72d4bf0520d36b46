import { redirect } from "react-router";
import { toggleFollow } from "../../core/follows/follows-service.js";
import { toggleAction } from "../features/reading/toggle-action.server.js";
import type { Route } from "./+types/follow";

/** Only a form posts here; a visit goes home. */
export const loader = () => redirect("/");

/** The Follow buttons' action (decision 016). */
export const action = ({ request, context }: Route.ActionArgs) =>
  toggleAction(request, context, "follow", (actor, { userId }) =>
    toggleFollow(context.deps, actor, userId ?? ""),
  );
