import { passkeyRegistrationOptions } from "../../core/auth/passkeys.js";
import { DomainError, STATUS_OF } from "../../core/shared/errors.js";
import { requireUser } from "../../core/users/users-service.js";
import { formFields } from "../features/forms/action.server.js";
import type { Route } from "./+types/passkey-options";

/** Asked for with POST alone: a GET (a reload, a shared link) is told so. */
export function loader() {
  return new Response(null, { status: 405, headers: { allow: "POST" } });
}

/**
 * The options to make a passkey with, as JSON for the security page's script (decision 024): the
 * API's call takes a bearer token, and the site's session is a cookie scripts cannot read.
 */
export async function action({ request, context }: Route.ActionArgs) {
  if (!context.viewer) return Response.json({ message: "Please log in" }, { status: 401 });
  const tooMany = await context.limit("security");
  if (tooMany) return Response.json({ message: tooMany }, { status: 429 });
  const fields = await formFields(request);
  try {
    const user = await requireUser(context.deps, context.viewer.actor.id);
    return Response.json(
      await passkeyRegistrationOptions(
        context.deps,
        user,
        { name: fields.name ?? "" },
        context.viewer,
      ),
      { headers: { "cache-control": "no-store" } },
    );
  } catch (error) {
    if (error instanceof DomainError) {
      return Response.json({ message: error.message }, { status: STATUS_OF[error.kind] });
    }
    throw error;
  }
}
