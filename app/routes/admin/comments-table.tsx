import { useActionData } from "react-router";
import { listComments } from "../../../core/comments/comments-service.js";
import { adminDelete } from "../../features/admin/delete-action.server.js";
import { requireAdmin } from "../../features/admin/guard.server.js";
import { AdminTable } from "../../features/admin/table.js";
import { pageMeta } from "../../meta.js";
import { ConfirmDelete } from "../../ui/confirm-delete.js";
import { useToastOn } from "../../ui/toasts.js";
import type { Route } from "./+types/comments-table";

export async function loader({ context }: Route.LoaderArgs) {
  const { actor } = requireAdmin(context);
  return { site: context.site, comments: await listComments(context.deps, actor) };
}

export const action = ({ request, context }: Route.ActionArgs) => adminDelete(request, context);

export const meta = ({ loaderData }: Route.MetaArgs) =>
  pageMeta(loaderData.site, {
    title: "Comments",
    description: "All comments.",
    path: "/admin-dashboard/comments-table",
  });

export default function CommentsTable({ loaderData }: Route.ComponentProps) {
  useToastOn(useActionData<typeof action>());
  return (
    <AdminTable
      title="Comments"
      columns={["User", "Comment"]}
      rows={loaderData.comments}
      empty="No Comments Were Found"
      rowKey={(comment) => comment._id}
      cells={(comment) => [comment.user.username, comment.text]}
      actions={(comment) => (
        <ConfirmDelete
          what="comment"
          label="Delete"
          fields={{ kind: "comment", id: comment._id }}
          className="button button-small button-danger"
        />
      )}
    />
  );
}
