import type { AppLoadContext } from "react-router";
import { deleteCategory } from "../../../core/categories/categories-service.js";
import { deleteComment } from "../../../core/comments/comments-service.js";
import { deletePage } from "../../../core/pages/pages-service.js";
import { deletePost } from "../../../core/posts/posts-service.js";
import type { Actor } from "../../../core/users/policies.js";
import { setSuspended } from "../../../core/users/suspension.js";
import { deleteUser } from "../../../core/users/users-service.js";
import { attempt, fail, failure, formFields } from "../forms/action.server.js";
import { requireAdmin } from "./guard.server.js";
import { suspensionTermsOf } from "./suspend-form.js";

type Deleter = (
  deps: AppLoadContext["deps"],
  actor: Actor,
  id: string,
  fields: Record<string, string>,
) => Promise<{ message: string }>;

const deleters = new Map<string, Deleter>([
  ["user", deleteUser],
  ["post", deletePost],
  ["category", deleteCategory],
  ["comment", deleteComment],
  ["page", deletePage],
  // Not deletes, but the same one-click row action of the users table.
  [
    "suspend",
    (deps, actor, id, fields) =>
      setSuspended(deps, actor, id, { suspended: true, ...suspensionTermsOf(fields) }),
  ],
  ["restore", (deps, actor, id) => setSuspended(deps, actor, id, { suspended: false })],
]);

/** The dashboard tables' row action: delete (or suspend, restore) the row named by `kind` and `id`. */
export async function adminDelete(request: Request, context: AppLoadContext) {
  const viewer = requireAdmin(context);
  const fields = await formFields(request);
  const { kind = "", id = "" } = fields;
  const remove = deleters.get(kind);
  if (!remove) return fail(failure(400, "Unknown item"));
  const result = await attempt(() => remove(context.deps, viewer.actor, id, fields));
  return result.ok ? { ok: true, message: result.value.message, errors: {} } : fail(result);
}
