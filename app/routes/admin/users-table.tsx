import { Form, Link, useActionData } from "react-router";
import { listUsers } from "../../../core/users/users-service.js";
import { adminDelete } from "../../features/admin/delete-action.server.js";
import { requireAdmin } from "../../features/admin/guard.server.js";
import { AdminTable } from "../../features/admin/table.js";
import { pageMeta } from "../../meta.js";
import { ConfirmDelete } from "../../ui/confirm-delete.js";
import { useToastOn } from "../../ui/toasts.js";
import type { Route } from "./+types/users-table";

export async function loader({ context }: Route.LoaderArgs) {
  const { actor } = requireAdmin(context);
  return {
    site: context.site,
    viewerId: actor.id,
    users: await listUsers(context.deps, actor),
  };
}

export const action = ({ request, context }: Route.ActionArgs) => adminDelete(request, context);

export const meta = ({ loaderData }: Route.MetaArgs) =>
  pageMeta(loaderData.site, {
    title: "Users",
    description: "All users.",
    path: "/admin-dashboard/users-table",
  });

export default function UsersTable({ loaderData }: Route.ComponentProps) {
  useToastOn(useActionData<typeof action>());
  return (
    <AdminTable
      title="Users"
      columns={["User", "Email"]}
      rows={loaderData.users}
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
          <Link to={`/profile/${user._id}`} className="button button-small">
            View Profile
          </Link>
          {user._id === loaderData.viewerId ? null : (
            <Form method="post" className="inline-form">
              <input type="hidden" name="kind" value={user.suspended ? "restore" : "suspend"} />
              <input type="hidden" name="id" value={user._id} />
              <button type="submit" className="button button-small">
                {user.suspended ? "Restore" : "Suspend"}
              </button>
            </Form>
          )}
          <ConfirmDelete
            what="user"
            label="Delete User"
            fields={{ kind: "user", id: user._id }}
            className="button button-small button-danger"
          />
        </>
      )}
    />
  );
}
