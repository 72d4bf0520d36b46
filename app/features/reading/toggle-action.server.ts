import { redirect, type AppLoadContext } from "react-router";
import type { Actor } from "../../../core/users/policies.js";
import { returnPath } from "../auth/return-path.js";
import { flashCookie } from "../flash.server.js";
import { attempt, formFields } from "../forms/action.server.js";
import type { LimitName } from "../../../contract/site-host.js";

/**
 * A Follow or Save form's action: the toggle, then back to the page it was sent from, which shows
 * the new state; a refusal (a gone post, too many requests) comes back as that page's message.
 */
export async function toggleAction(
  request: Request,
  context: AppLoadContext,
  limit: LimitName,
  toggle: (actor: Actor, fields: Record<string, string>) => Promise<unknown>,
) {
  const viewer = context.viewer;
  if (!viewer) return redirect("/login");
  const fields = await formFields(request);
  const back = returnPath(fields.returnTo) ?? "/";
  const tooMany = await context.limit(limit);
  const result = tooMany
    ? { ok: false as const, message: tooMany }
    : await attempt(() => toggle(viewer.actor, fields));
  if (result.ok) return redirect(back);
  return redirect(back, { headers: { "Set-Cookie": flashCookie(result.message ?? "") } });
}
