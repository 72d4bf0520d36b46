import { data, redirect } from "react-router";
import { returnPath } from "../features/auth/return-path.js";
import { failure, formFields } from "../features/forms/action.server.js";
import { isTheme } from "../../contract/theme.js";
import { themeCookie } from "../features/theme/theme.server.js";
import type { Route } from "./+types/theme";

/** Only the theme switch posts here; a visit goes home. */
export const loader = () => redirect("/");

/**
 * The theme switch (decision 014): remembers light, dark or the system's setting in a cookie.
 * With JavaScript the answer comes back in place (the pages' loaders then run again under the new
 * cookie); without it, the reader goes back to the page they were on, now in the new theme.
 */
export async function action({ request, context }: Route.ActionArgs) {
  const { theme, returnTo, inPlace } = await formFields(request);
  if (!isTheme(theme)) return data(failure(400, "Choose light, dark or system"), { status: 400 });
  const headers = { "Set-Cookie": themeCookie(theme, context.secureCookies) };
  if (inPlace) return data({ ok: true, theme }, { headers });
  return redirect(returnPath(returnTo) ?? refererPath(request) ?? "/", { headers });
}

/**
 * The page the switch was used on, from the browser's Referer when it is this site's: the form
 * carries no address of its own, so no page repeats its URL (a 404 never echoes what was asked).
 */
function refererPath(request: Request) {
  const referer = request.headers.get("referer");
  if (!referer) return undefined;
  try {
    const from = new URL(referer);
    return from.host === new URL(request.url).host
      ? returnPath(from.pathname + from.search)
      : undefined;
  } catch {
    return undefined;
  }
}
