import { Link, useActionData } from "react-router";
import { countPosts, listPosts } from "../../../core/posts/posts-service.js";
import { adminDelete } from "../../features/admin/delete-action.server.js";
import { requireAdmin } from "../../features/admin/guard.server.js";
import { ADMIN_ROWS_PER_PAGE, pagingOf, tablePage } from "../../features/admin/paging.js";
import { AdminTable } from "../../features/admin/table.js";
import { STATUS_LABELS } from "../../features/posts/publish-controls.js";
import { pageMeta } from "../../meta.js";
import { ConfirmDelete } from "../../ui/confirm-delete.js";
import { useToastOn } from "../../ui/toasts.js";
import type { Route } from "./+types/posts-table";
import { postPath } from "../../../contract/page-paths.js";

const PATH = "/admin-dashboard/posts-table";

export async function loader({ context, request }: Route.LoaderArgs) {
  requireAdmin(context);
  const { page } = tablePage(request);
  const [posts, total] = await Promise.all([
    listPosts(context.deps, { status: "any" }, page, ADMIN_ROWS_PER_PAGE),
    countPosts(context.deps, { status: "any" }),
  ]);
  return { site: context.site, posts, paging: pagingOf(page, total, PATH) };
}

export const action = ({ request, context }: Route.ActionArgs) => adminDelete(request, context);

export const meta = ({ loaderData }: Route.MetaArgs) =>
  pageMeta(loaderData.site, {
    title: "Posts",
    description: "All posts.",
    path: PATH,
  });

export default function PostsTable({ loaderData }: Route.ComponentProps) {
  useToastOn(useActionData<typeof action>());
  return (
    <AdminTable
      title="Posts"
      columns={["User", "Post Title"]}
      rows={loaderData.posts}
      paging={loaderData.paging}
      empty="No Posts Were Found"
      rowKey={(post) => post._id}
      // A post not yet out says so by its title (a column of its own does not fit a phone).
      cells={(post) => [
        post.user.username,
        post.status === "published" ? (
          post.title
        ) : (
          <>
            {post.title} <span className="status-tag">{STATUS_LABELS[post.status]}</span>
          </>
        ),
      ]}
      actions={(post) => (
        <>
          <Link to={postPath(post._id)} className="button button-small">
            View Post
          </Link>
          <ConfirmDelete
            what="post"
            label="Delete Post"
            fields={{ kind: "post", id: post._id }}
            className="button button-small button-danger"
          />
        </>
      )}
    />
  );
}
