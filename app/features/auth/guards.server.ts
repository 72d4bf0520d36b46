import { redirect, type AppLoadContext } from "react-router";

/** Pages for visitors only (login, register...): a signed-in person goes home (SPEC.md 2). */
export function requireVisitor(context: AppLoadContext) {
  if (context.viewer) throw redirect("/");
}

/**
 * Pages for signed-in people: visitors go home, decided before anything renders. With `from` (the
 * page asked for), home says why and offers to come back to it after signing in.
 */
export function requireViewer(context: AppLoadContext, from?: string) {
  if (!context.viewer) {
    throw redirect(from ? `/?${new URLSearchParams({ from }).toString()}` : "/");
  }
  return context.viewer;
}
