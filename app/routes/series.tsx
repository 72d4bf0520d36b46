import { data, Link, redirect, useActionData, useNavigation } from "react-router";
import { ownSeriesPath, postPath, seriesPath } from "../../contract/page-paths.js";
import {
  deleteSeries,
  getSeries,
  postsToAddTo,
  updateSeries,
} from "../../core/series/series-service.js";
import { DomainError } from "../../core/shared/errors.js";
import { requireViewer } from "../features/auth/guards.server.js";
import { flashCookie } from "../features/flash.server.js";
import { attempt, fail, formFields, limited } from "../features/forms/action.server.js";
import { useClientValidation } from "../features/forms/form-state.js";
import { useAuthorLink } from "../features/posts/byline.js";
import { cardsOf } from "../features/posts/post-card.js";
import { STATUS_LABELS } from "../features/posts/publish-controls.js";
import { seriesPostsFromForm } from "../features/series/series-form.js";
import { DeleteSeries, SeriesManager, type SeriesRow } from "../features/series/series-manager.js";
import seriesStyles from "../features/series/series.css?url";
import publishingStyles from "../features/posts/publishing.css?url";
import { feedLinks } from "../feed-links.js";
import { pageMeta } from "../meta.js";
import { shortDate } from "../ui/format.js";
import { useToastOn } from "../ui/toasts.js";
import type { Route } from "./+types/series";

export const links: Route.LinksFunction = () => [
  { rel: "stylesheet", href: seriesStyles },
  { rel: "stylesheet", href: publishingStyles },
];

/**
 * A series' page (DESIGN.md 11, "Pages and series"; decision 032): its posts in order as readers
 * number them, and its feeds. Visitors' renders are kept as other shared pages' are; a member's
 * page is rendered for them, since its writer's shows their drafts and the form that orders it.
 */
export async function loader({ context, params }: Route.LoaderArgs) {
  const actor = context.viewer?.actor;
  const { deps } = context;
  try {
    const series = await getSeries(deps, actor, params.id);
    const own = actor?.id === series.author._id;
    return {
      site: context.site,
      // No likes or comments counts: a like then changes no kept render of this page.
      series: { ...series, posts: cardsOf(series.posts) },
      own,
      // Admins may delete any series (logged); the writer's tools are the writer's alone.
      canDelete: own || actor?.isAdmin === true,
      offered: own ? await postsToAddTo(deps, series) : [],
    };
  } catch (error) {
    if (error instanceof DomainError && error.kind === "not_found") {
      throw data(null, { status: 404 });
    }
    throw error;
  }
}

/** What a refused save had in its fields, to show again. */
interface Typed {
  title: string;
  description: string;
  posts: string[] | undefined;
}
const typedOf = (result: unknown): Typed | undefined =>
  typeof result === "object" && result !== null && "typed" in result
    ? (result.typed as Typed)
    : undefined;

const redirectWith = (to: string, message: string) =>
  redirect(to, { headers: { "Set-Cookie": flashCookie(message) } });

export async function action({ request, context, params }: Route.ActionArgs) {
  const { actor } = requireViewer(context, seriesPath(params.id));
  const tooMany = await limited(context, "postEdit");
  if (tooMany) return tooMany;
  const fields = await formFields(request);
  const { deps } = context;
  if (fields.intent === "delete") {
    const deleted = await attempt(() => deleteSeries(deps, actor, params.id));
    return deleted.ok ? redirectWith(ownSeriesPath, deleted.value.message) : fail(deleted);
  }
  // The posts as the form listed them, with the move, removal or addition it asked for.
  const typed: Typed = {
    title: fields.title ?? "",
    description: fields.description ?? "",
    posts: seriesPostsFromForm(fields),
  };
  const saved = await attempt(() => updateSeries(deps, actor, params.id, typed));
  if (saved.ok) return redirectWith(seriesPath(params.id), "Series saved");
  return data({ ...saved, typed }, { status: saved.status });
}

export const meta = ({ loaderData }: Route.MetaArgs) => {
  const { series, site } = loaderData;
  const path = seriesPath(series._id);
  const description =
    series.description || `A series of posts by ${series.author.username} on ${site.title}.`;
  const shown = series.posts.some((post) => post.status === "published");
  return [
    ...pageMeta(site, { title: series.title, description, path }),
    // Nothing for readers yet (its writer's drafts alone): not a page for search engines.
    ...(shown ? [] : [{ name: "robots", content: "noindex" }]),
    { property: "og:type", content: "website" },
    { property: "og:title", content: series.title },
    { property: "og:description", content: description },
    { property: "og:url", content: `${site.publicUrl}${path}` },
    { property: "og:site_name", content: site.title },
    { name: "twitter:card", content: "summary" },
    { name: "twitter:title", content: series.title },
    { name: "twitter:description", content: description },
    ...feedLinks(`series=${encodeURIComponent(series._id)}`, series.title),
  ];
};

type Loaded = Route.ComponentProps["loaderData"];

export default function Series({ loaderData }: Route.ComponentProps) {
  const { series, own, canDelete, offered } = loaderData;
  const result = useActionData<typeof action>();
  useToastOn(result);
  const busy = useNavigation().state === "submitting";
  const { errors, form } = useClientValidation(
    () => import("../../contract/series.js").then((m) => m.SeriesUpdateSchema),
    result?.errors,
  );
  const authorLink = useAuthorLink(series.author);
  const typed = typedOf(result);
  const published = series.posts.filter((post) => post.status === "published").length;
  const feed = `series=${encodeURIComponent(series._id)}`;
  return (
    <article className="series-page">
      <header className="series-header">
        <p className="tag">Series</p>
        <h1 className="page-title">{series.title}</h1>
        {series.description ? <p className="series-description">{series.description}</p> : null}
        <p className="muted">
          By <Link to={authorLink}>{series.author.username}</Link> · {published}{" "}
          {published === 1 ? "part" : "parts"} · <a href={`/rss.xml?${feed}`}>RSS feed</a> ·{" "}
          <a href={`/feed.json?${feed}`}>JSON Feed</a>
        </p>
      </header>
      <SeriesParts posts={series.posts} />
      {own ? (
        <SeriesManager
          series={series}
          rows={rowsOf(typed?.posts, series.posts, offered)}
          offered={offered}
          typed={typed}
          errors={errors}
          result={result}
          busy={busy}
          form={form}
        />
      ) : canDelete ? (
        <DeleteSeries />
      ) : null}
    </article>
  );
}

/** The posts in order, numbered as readers see them; the writer's unpublished ones marked. */
function SeriesParts({ posts }: { posts: Loaded["series"]["posts"] }) {
  if (posts.length === 0) return <p className="muted">No posts in this series yet.</p>;
  return (
    <ol className="series-list" aria-label="Parts">
      {posts.map((post) => (
        <li key={post._id} className="series-item">
          <p className="series-item-number">
            {post.status === "published" ? (
              `Part ${String(post.series?.position ?? 1)}`
            ) : (
              <>
                <span className="status-tag">{STATUS_LABELS[post.status]}</span> Only you see it
                until it is published
              </>
            )}
          </p>
          <h2 className="series-item-title">
            <Link to={postPath(post._id)}>{post.title}</Link>
          </h2>
          <p className="muted">
            <time dateTime={post.publishedAt ?? post.updatedAt}>
              {shortDate(post.publishedAt ?? post.updatedAt)}
            </time>{" "}
            · {post.readingMinutes} min read
          </p>
          <p>{post.excerpt}</p>
        </li>
      ))}
    </ol>
  );
}

/** The writer's rows: the order a refused save sent (its titles from what the page knows). */
function rowsOf(
  typed: readonly string[] | undefined,
  posts: Loaded["series"]["posts"],
  offered: Loaded["offered"],
): SeriesRow[] {
  if (typed === undefined) return posts;
  const known = new Map<string, SeriesRow>([...posts, ...offered].map((post) => [post._id, post]));
  return typed.map(
    (id) => known.get(id) ?? { _id: id, title: "A post not found", status: "published" },
  );
}
