import { redirect, type AppLoadContext } from "react-router";

/** The dashboard is for admins; anyone else goes home before anything renders (SPEC.md 2). */
export function requireAdmin(context: AppLoadContext) {
  const viewer = context.viewer;
  if (!viewer?.actor.isAdmin) throw redirect("/");
  return viewer;
}
