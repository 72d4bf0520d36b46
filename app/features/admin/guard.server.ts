import { data, redirect, type AppLoadContext } from "react-router";

/** The dashboard is for admins; anyone else goes home before anything renders (SPEC.md 2). */
export function requireAdmin(context: AppLoadContext) {
  const viewer = context.viewer;
  if (!viewer?.actor.isAdmin) throw redirect("/");
  return viewer;
}

/** Pages past SPEC's that tell a signed-in member "admins only" (403) instead of sending them home. */
export const REFUSING_PAGES = new Set(["/admin-dashboard/stats"]);

/** Whether a request is for one of them (its page, or its client navigation data). */
export const refusesMembers = (request: Request) =>
  REFUSING_PAGES.has(new URL(request.url).pathname.replace(/\.data$/, ""));

/** An admin's page that answers a member 403 (issue 37); a visitor still goes home. */
export function requireAdminOrRefuse(context: AppLoadContext) {
  const viewer = context.viewer;
  if (!viewer) throw redirect("/");
  if (!viewer.actor.isAdmin) throw data("admins", { status: 403 });
  return viewer;
}
