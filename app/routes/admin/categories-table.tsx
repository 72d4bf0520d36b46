import { useActionData } from "react-router";
import { listCategories } from "../../../core/categories/categories-service.js";
import { adminDelete } from "../../features/admin/delete-action.server.js";
import { requireAdmin } from "../../features/admin/guard.server.js";
import { AdminTable } from "../../features/admin/table.js";
import { pageMeta } from "../../meta.js";
import { ConfirmDelete } from "../../ui/confirm-delete.js";
import { useToastOn } from "../../ui/toasts.js";
import type { Route } from "./+types/categories-table";

export async function loader({ context }: Route.LoaderArgs) {
  requireAdmin(context);
  return { site: context.site, categories: await listCategories(context.deps) };
}

export const action = ({ request, context }: Route.ActionArgs) => adminDelete(request, context);

export const meta = ({ loaderData }: Route.MetaArgs) =>
  pageMeta(loaderData.site, {
    title: "Categories",
    description: "All categories.",
    path: "/admin-dashboard/categories-table",
  });

export default function CategoriesTable({ loaderData }: Route.ComponentProps) {
  useToastOn(useActionData<typeof action>());
  return (
    <AdminTable
      title="Categories"
      columns={["Title"]}
      rows={loaderData.categories}
      empty="No Categories Were Found"
      rowKey={(category) => category._id}
      cells={(category) => [category.title]}
      actions={(category) => (
        <ConfirmDelete
          what="category"
          label="Delete Category"
          fields={{ kind: "category", id: category._id }}
          className="button button-small button-danger"
        />
      )}
    />
  );
}
