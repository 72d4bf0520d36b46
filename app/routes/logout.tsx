import { redirect } from "react-router";
import { logout } from "../../core/auth/auth-service.js";
import { clearedSessionCookie } from "../features/auth/session-cookie.server.js";
import type { Route } from "./+types/logout";

/** Log Out clears the session on the server and the cookie, then goes home (SPEC.md 2). */
export async function action({ context }: Route.ActionArgs) {
  if (context.viewer) await logout(context.deps, context.viewer.sessionId);
  return redirect("/", { headers: { "Set-Cookie": clearedSessionCookie(context.secureCookies) } });
}

export function loader() {
  return redirect("/");
}
