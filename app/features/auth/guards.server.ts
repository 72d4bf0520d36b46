import { redirect, type AppLoadContext } from "react-router";

/** Pages for visitors only (login, register...): a signed-in person goes home (SPEC.md 2). */
export function requireVisitor(context: AppLoadContext) {
  if (context.viewer) throw redirect("/");
}

/** Pages for signed-in people: visitors go home, decided before anything renders. */
export function requireViewer(context: AppLoadContext) {
  if (!context.viewer) throw redirect("/");
  return context.viewer;
}
