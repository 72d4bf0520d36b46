import { data, Form, Link, redirect, useActionData, useNavigation } from "react-router";
import { ownSeriesPath, seriesPath } from "../../contract/page-paths.js";
import { createSeries, listSeriesOf } from "../../core/series/series-service.js";
import { requireViewer } from "../features/auth/guards.server.js";
import { flashCookie } from "../features/flash.server.js";
import { attempt, formFields, limited } from "../features/forms/action.server.js";
import { SeriesFields } from "../features/series/series-manager.js";
import { FormAlert } from "../features/forms/form-alert.js";
import { useClientValidation } from "../features/forms/form-state.js";
import seriesStyles from "../features/series/series.css?url";
import { pageMeta } from "../meta.js";
import { shortDate } from "../ui/format.js";
import { useToastOn } from "../ui/toasts.js";
import type { Route } from "./+types/own-series";

/** What a refused form had in its fields, to show again. */
const typedOf = (result: unknown) =>
  typeof result === "object" && result !== null && "typed" in result
    ? (result.typed as { title: string; description: string })
    : undefined;

export const links: Route.LinksFunction = () => [{ rel: "stylesheet", href: seriesStyles }];

/** The signed-in writer's series (decision 032), and the form that starts one. */
export async function loader({ context }: Route.LoaderArgs) {
  const viewer = requireViewer(context, ownSeriesPath);
  return { site: context.site, series: await listSeriesOf(context.deps, viewer.actor.id) };
}

export async function action({ request, context }: Route.ActionArgs) {
  const { actor } = requireViewer(context, ownSeriesPath);
  const tooMany = await limited(context, "postEdit");
  if (tooMany) return tooMany;
  const fields = await formFields(request);
  const typed = { title: fields.title ?? "", description: fields.description ?? "" };
  const created = await attempt(() => createSeries(context.deps, actor, typed));
  // Made: its page, where posts are added and ordered.
  if (created.ok) {
    return redirect(seriesPath(created.value._id), {
      headers: { "Set-Cookie": flashCookie("Series created") },
    });
  }
  return data({ ...created, typed }, { status: created.status });
}

export const meta = ({ loaderData }: Route.MetaArgs) => [
  ...pageMeta(loaderData.site, {
    title: "Your series",
    description: "Posts of yours that read in order.",
    path: ownSeriesPath,
  }),
  { name: "robots", content: "noindex" },
];

export default function OwnSeries({ loaderData }: Route.ComponentProps) {
  const { series } = loaderData;
  const result = useActionData<typeof action>();
  useToastOn(result);
  const busy = useNavigation().state === "submitting";
  const { errors, form } = useClientValidation(
    () => import("../../contract/series.js").then((m) => m.SeriesCreateSchema),
    result?.errors,
  );
  const typed = typedOf(result);
  return (
    <>
      <h1 className="page-title">Your series</h1>
      <p className="muted">
        A series is posts of yours that read in order, as the parts of a tutorial do. Each post
        shows its readers “Part 2 of 5”, the other parts, and a link to the next.
      </p>
      {series.length === 0 ? (
        <p>No series yet.</p>
      ) : (
        <ul className="series-index">
          {series.map((one) => (
            <li key={one._id} className="card">
              <Link to={seriesPath(one._id)}>{one.title}</Link>{" "}
              <span className="muted">
                · {one.postsCount} {one.postsCount === 1 ? "post" : "posts"} · updated{" "}
                <time dateTime={one.updatedAt}>{shortDate(one.updatedAt)}</time>
              </span>
              {one.description ? <p className="muted">{one.description}</p> : null}
            </li>
          ))}
        </ul>
      )}
      <section className="card series-manage" aria-labelledby="new-series-title">
        <h2 id="new-series-title">New series</h2>
        <Form method="post" noValidate {...form} className="form">
          <FormAlert result={result} />
          <SeriesFields title={typed?.title} description={typed?.description} errors={errors} />
          <p className="field-hint">You add and order its posts on its page next.</p>
          <button type="submit" className="button" disabled={busy}>
            Create series
          </button>
        </Form>
      </section>
    </>
  );
}
