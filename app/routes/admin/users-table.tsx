import { Form, Link, useActionData } from "react-router";
import { EMAIL_MAX } from "../../../contract/limits.js";
import { profilePath } from "../../../contract/page-paths.js";
import { USERS_PAGE_SIZE } from "../../../contract/users.js";
import { countUsers, listUsers } from "../../../core/users/users-service.js";
import { adminDelete } from "../../features/admin/delete-action.server.js";
import { requireAdmin } from "../../features/admin/guard.server.js";
import { pagingOf } from "../../features/admin/paging.js";
import { RowMenu } from "../../features/admin/row-menu.js";
import { SuspendForm } from "../../features/admin/suspend-form.js";
import { AdminTable } from "../../features/admin/table.js";
import { TableSearch } from "../../features/admin/table-search.js";
import usersTableStyles from "../../features/admin/users-table.css?url";
import { pageFrom } from "../../features/posts/pager.js";
import { pageMeta } from "../../meta.js";
import { ConfirmDelete } from "../../ui/confirm-delete.js";
import { shortDate } from "../../ui/format.js";
import { useToastOn } from "../../ui/toasts.js";
import type { Route } from "./+types/users-table";

const PATH = "/admin-dashboard/users-table";

export const links: Route.LinksFunction = () => [{ rel: "stylesheet", href: usersTableStyles }];

/** A page of USERS_PAGE_SIZE users, newest first, or of those `?q=` finds (issue 50). */
export async function loader({ context, request }: Route.LoaderArgs) {
  const { actor } = requireAdmin(context);
  const q = (new URL(request.url).searchParams.get("q") ?? "").trim().slice(0, EMAIL_MAX);
  const page = pageFrom(request.url);
  const [users, total] = await Promise.all([
    listUsers(context.deps, actor, { q, pageNumber: String(page) }),
    countUsers(context.deps, actor, { q }),
  ]);
  // The pages of a search are pages of that search.
  const path = q ? `${PATH}?${new URLSearchParams({ q }).toString()}` : PATH;
  return {
    site: context.site,
    users,
    q,
    total: total.userCount,
    paging: pagingOf(page, total.userCount, path, USERS_PAGE_SIZE),
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
  const { q, total, viewerId } = loaderData;
  return (
    <AdminTable
      title="Users"
      className="users-table"
      above={
        <>
          <TableSearch
            path={PATH}
            label="Search users"
            placeholder="Username or email"
            q={q}
            maxLength={EMAIL_MAX}
          />
          {q && total > 0 ? (
            <p role="status" className="table-found">
              {total} {total === 1 ? "user matches" : "users match"} “{q}”.
            </p>
          ) : null}
        </>
      }
      columns={["User", "Email", "Joined", "Role"]}
      rows={loaderData.users}
      paging={loaderData.paging}
      empty={q && total === 0 ? `No users match “${q}”.` : "No Users Were Found"}
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
        </span>,
        user.email,
        <time key="joined" dateTime={user.createdAt}>
          {shortDate(user.createdAt)}
        </time>,
        <span key="role">
          {user.isAdmin ? "Admin" : "Member"}
          {user.suspended ? (
            <>
              {" "}
              <span className="tag">Suspended</span>
            </>
          ) : null}
        </span>,
      ]}
      actions={(user) => (
        <RowMenu rowName={user.username}>
          <Link to={profilePath(user._id)} className="button button-small">
            View Profile
          </Link>
          {/* The admin's own account is neither suspended nor deleted from here. */}
          {user._id === viewerId ? null : (
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
        </RowMenu>
      )}
    />
  );
}
