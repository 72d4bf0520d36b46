import { Form, Link, useActionData } from "react-router";
import { countUsers, listUsers } from "../../../core/users/users-service.js";
import { adminDelete } from "../../features/admin/delete-action.server.js";
import { requireAdmin } from "../../features/admin/guard.server.js";
import { pagingOf, tablePage } from "../../features/admin/paging.js";
import { SuspendForm } from "../../features/admin/suspend-form.js";
import { AdminTable } from "../../features/admin/table.js";
import { pageMeta } from "../../meta.js";
import { ConfirmDelete } from "../../ui/confirm-delete.js";
import { useToastOn } from "../../ui/toasts.js";
import type { Route } from "./+types/users-table";
import { profilePath } from "../../../contract/page-paths.js";

const PATH = "/admin-dashboard/users-table";

export async function loader({ context, request }: Route.LoaderArgs) {
  const { actor } = requireAdmin(context);
  const { page, rows } = tablePage(request);
  const [users, total] = await Promise.all([
    listUsers(context.deps, actor, rows),
    countUsers(context.deps, actor),
  ]);
  return {
    site: context.site,
    users,
    paging: pagingOf(page, total.userCount, PATH),
    viewerId: actor.id,
  };
}

export const action = ({ request, context }: Route.ActionArgs) => adminDelete(request, context);

export const meta = ({ loaderData }: Route.MetaArgs) =>
  pageMeta(loaderData.site, {
    title: "Users",
    description: "All users.",
    path: PATH,
  });

export default function UsersTable({ loaderData }: Route.ComponentProps) {
  useToastOn(useActionData<typeof action>());
  return (
    <AdminTable
      title="Users"
      columns={["User", "Email"]}
      rows={loaderData.users}
      paging={loaderData.paging}
      empty="No Users Were Found"
      rowKey={(user) => user._id}
      cells={(user) => [
        <span className="table-user" key="user">
          <img
            src={user.profilePhoto.url}
            alt=""
            width="32"
            height="32"
            className="avatar"
            loading="lazy"
          />
          {user.username}
          {user.suspended ? <span className="tag">Suspended</span> : null}
        </span>,
        user.email,
      ]}
      actions={(user) => (
        <>
          <Link to={profilePath(user._id)} className="button button-small">
            View Profile
          </Link>
          {/* The admin's own account is neither suspended nor deleted from here. */}
          {user._id === loaderData.viewerId ? null : (
            <>
              {user.suspended ? (
                <Form method="post" className="inline-form">
                  <input type="hidden" name="kind" value="restore" />
                  <input type="hidden" name="id" value={user._id} />
                  <button type="submit" className="button button-small button-ghost">
                    Restore
                  </button>
                </Form>
              ) : (
                <SuspendForm
                  username={user.username}
                  label="Suspend"
                  fields={{ kind: "suspend", id: user._id }}
                />
              )}
              <ConfirmDelete
                what="user"
                label="Delete User"
                fields={{ kind: "user", id: user._id }}
                className="button button-small button-danger"
              />
            </>
          )}
        </>
      )}
    />
  );
}
