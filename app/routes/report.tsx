import { redirect } from "react-router";
import { createReport } from "../../core/reports/reports-service.js";
import { returnPath } from "../features/auth/return-path.js";
import { flashCookie } from "../features/flash.server.js";
import { attempt, fail, formFields, limited } from "../features/forms/action.server.js";
import type { Route } from "./+types/report";

/** Only a form posts here; a visit goes home. */
export const loader = () => redirect("/");

/**
 * The "Report" menus' action: the report, answered in place (with JavaScript) or by going back to
 * the page with what became of it.
 */
export async function action({ request, context }: Route.ActionArgs) {
  const viewer = context.viewer;
  if (!viewer) return redirect("/login");
  const tooMany = await limited(context, "report");
  if (tooMany) return tooMany;
  const { returnTo, inPlace, postId, commentId, userId, reason, note } = await formFields(request);
  const result = await attempt(() =>
    createReport(context.deps, viewer.actor, { postId, commentId, userId, reason, note }),
  );
  if (inPlace) return result.ok ? { ok: true, message: result.value.message } : fail(result);
  const message = result.ok ? result.value.message : result.message;
  // Back to the page the menu was on: a path of this site, never another origin (`//x`, `/\x`).
  return redirect(returnPath(returnTo) ?? "/", {
    headers: { "Set-Cookie": flashCookie(message ?? "") },
  });
}
