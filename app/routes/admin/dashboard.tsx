import { useEffect, useState } from "react";
import { data, Form, Link, useActionData, useNavigation } from "react-router";
import { createCategory, listCategories } from "../../../core/categories/categories-service.js";
import { countComments } from "../../../core/comments/comments-service.js";
import { countPosts } from "../../../core/posts/posts-service.js";
import { countUsers } from "../../../core/users/users-service.js";
import { requireAdmin } from "../../features/admin/guard.server.js";
import { attempt, formFields } from "../../features/forms/action.server.js";
import { Field } from "../../features/forms/field.js";
import { FormAlert } from "../../features/forms/form-alert.js";
import { useClientValidation } from "../../features/forms/form-state.js";
import { pageMeta } from "../../meta.js";
import { useToastOn } from "../../ui/toasts.js";
import type { Route } from "./+types/dashboard";

export async function loader({ context }: Route.LoaderArgs) {
  const { actor } = requireAdmin(context);
  const [users, posts, categories, comments] = await Promise.all([
    countUsers(context.deps, actor),
    countPosts(context.deps),
    listCategories(context.deps),
    countComments(context.deps, actor),
  ]);
  return {
    site: context.site,
    counts: { users: users.userCount, posts, categories: categories.length, comments },
  };
}

export async function action({ request, context }: Route.ActionArgs) {
  const { actor } = requireAdmin(context);
  const fields = await formFields(request);
  const result = await attempt(async () => createCategory(context.deps, actor, fields));
  // A refused title stays in the field to be corrected (without JavaScript too).
  return result.ok
    ? { ok: true as const, message: "Category Added Successfully", errors: {} }
    : data({ ...result, title: fields.title ?? "" }, { status: result.status });
}

export const meta = ({ loaderData }: Route.MetaArgs) =>
  pageMeta(loaderData.site, {
    title: "Admin Dashboard",
    description: "Manage the site.",
    path: "/admin-dashboard",
  });

const CARDS = [
  { key: "users", title: "Users", to: "/admin-dashboard/users-table" },
  { key: "posts", title: "Posts", to: "/admin-dashboard/posts-table" },
  { key: "categories", title: "Categories", to: "/admin-dashboard/categories-table" },
  { key: "comments", title: "Comments", to: "/admin-dashboard/comments-table" },
] as const;

export default function Dashboard({ loaderData }: Route.ComponentProps) {
  const result = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  const { errors, form } = useClientValidation(
    () => import("../../../contract/content.js").then((m) => m.CategoryCreateSchema),
    result?.errors,
  );
  useToastOn(result);
  // A new, empty form after each added category; a refused one keeps what was typed.
  const [added, setAdded] = useState(0);
  useEffect(() => {
    if (result?.ok) setAdded((count) => count + 1);
  }, [result]);
  return (
    <>
      <h1 className="page-title">Admin Dashboard</h1>
      <ul className="summary-cards">
        {CARDS.map((card) => (
          <li key={card.key} className="card summary-card">
            <h2>{card.title}</h2>
            <p className="summary-count">{loaderData.counts[card.key]}</p>
            <Link to={card.to} aria-label={`View More ${card.title}`}>
              View More
            </Link>
          </li>
        ))}
      </ul>
      <Form method="post" noValidate {...form} className="card form add-category" key={added}>
        <h2>Add New Category</h2>
        <FormAlert result={result} />
        <Field
          label="Category Title"
          name="title"
          error={errors.title}
          defaultValue={result && !result.ok ? result.title : undefined}
        />
        <button type="submit" className="button" disabled={busy}>
          Add
        </button>
        {result?.ok ? <p role="status">{result.message}</p> : null}
      </Form>
    </>
  );
}
