import { Link, useActionData } from "react-router";
import { countComments, listComments } from "../../../core/comments/comments-service.js";
import { adminDelete } from "../../features/admin/delete-action.server.js";
import { requireAdmin } from "../../features/admin/guard.server.js";
import { pagingOf, tablePage } from "../../features/admin/paging.js";
import { AdminTable } from "../../features/admin/table.js";
import { pageMeta } from "../../meta.js";
import { ConfirmDelete } from "../../ui/confirm-delete.js";
import { useToastOn } from "../../ui/toasts.js";
import type { Route } from "./+types/comments-table";
import { postPath } from "../../../contract/page-paths.js";

const PATH = "/admin-dashboard/comments-table";

export async function loader({ context, request }: Route.LoaderArgs) {
  const { actor } = requireAdmin(context);
  const { page, rows } = tablePage(request);
  const [comments, total] = await Promise.all([
    listComments(context.deps, actor, rows),
    countComments(context.deps, actor),
  ]);
  return { site: context.site, comments, paging: pagingOf(page, total, PATH) };
}

export const action = ({ request, context }: Route.ActionArgs) => adminDelete(request, context);

export const meta = ({ loaderData }: Route.MetaArgs) =>
  pageMeta(loaderData.site, {
    title: "Comments",
    description: "All comments.",
    path: PATH,
  });

export default function CommentsTable({ loaderData }: Route.ComponentProps) {
  useToastOn(useActionData<typeof action>());
  return (
    <AdminTable
      title="Comments"
      columns={["User", "Comment"]}
      rows={loaderData.comments}
      paging={loaderData.paging}
      empty="No Comments Were Found"
      rowKey={(comment) => comment._id}
      cells={(comment) => [comment.user.username, comment.text]}
      actions={(comment) => (
        <>
          <Link to={postPath(comment.postId)} className="button button-small">
            View Post
          </Link>
          <ConfirmDelete
            what="comment"
            label="Delete"
            fields={{ kind: "comment", id: comment._id }}
            className="button button-small button-danger"
          />
        </>
      )}
    />
  );
}
