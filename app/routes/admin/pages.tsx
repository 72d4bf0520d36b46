import { Link, useActionData } from "react-router";
import { adminPagesPath, pageEditorPath, pagePath } from "../../../contract/page-paths.js";
import { listPages } from "../../../core/pages/pages-service.js";
import { adminDelete } from "../../features/admin/delete-action.server.js";
import { requireAdmin } from "../../features/admin/guard.server.js";
import { AdminTable } from "../../features/admin/table.js";
import { pageMeta } from "../../meta.js";
import { ConfirmDelete } from "../../ui/confirm-delete.js";
import { dateTime } from "../../ui/format.js";
import { useToastOn } from "../../ui/toasts.js";
import type { Route } from "./+types/pages";

export async function loader({ context }: Route.LoaderArgs) {
  const { actor } = requireAdmin(context);
  return { site: context.site, pages: await listPages(context.deps, actor) };
}

export const action = ({ request, context }: Route.ActionArgs) => adminDelete(request, context);

export const meta = ({ loaderData }: Route.MetaArgs) =>
  pageMeta(loaderData.site, {
    title: "Pages",
    description: "The site's static pages.",
    path: adminPagesPath,
  });

/** The static pages (decision 032): each to edit, view or delete, and a link to write one. */
export default function Pages({ loaderData }: Route.ComponentProps) {
  useToastOn(useActionData<typeof action>());
  return (
    <AdminTable
      title="Pages"
      above={
        <p>
          Pages are for what does not change often (About, Contact, a colophon): they are not in the
          post lists, feeds or newsletters. Put one in the header or footer on{" "}
          <Link to="/admin-dashboard/site-settings">Site settings</Link>.{" "}
          <Link to={pageEditorPath("new")} className="button button-small">
            New page
          </Link>
        </p>
      }
      columns={["Title", "Address", "Status", "Updated"]}
      rows={loaderData.pages}
      empty="No pages yet"
      rowKey={(page) => page._id}
      cells={(page) => [
        <Link key="title" to={pageEditorPath(page._id)}>
          {page.title}
        </Link>,
        <a key="address" href={pagePath(page.slug)} className="keep-words">
          {pagePath(page.slug)}
        </a>,
        page.status === "published" ? "Published" : "Draft",
        <time key="updated" dateTime={page.updatedAt}>
          {dateTime(page.updatedAt)}
        </time>,
      ]}
      actions={(page) => (
        <ConfirmDelete
          what="page"
          label="Delete Page"
          name={`Delete page ${page.title}`}
          fields={{ kind: "page", id: page._id }}
          className="button button-small button-danger"
        />
      )}
    />
  );
}
