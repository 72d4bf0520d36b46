import { data, redirect } from "react-router";
import { isTag, normalizeTag } from "../../contract/content-rules.js";
import { PAGE_SIZE } from "../../contract/limits.js";
import { countPosts, listPosts } from "../../core/posts/posts-service.js";
import { pageFrom, Pager } from "../features/posts/pager.js";
import { cardsOf, PostGrid } from "../features/posts/post-card.js";
import { savedIslands } from "../features/reading/bookmark-button.js";
import { savedPart } from "../features/reading/saved.server.js";
import { feedLinks } from "../feed-links.js";
import { pageMeta } from "../meta.js";
import type { Route } from "./+types/tag";
import { tagPath } from "../../contract/page-paths.js";

/** This route's id, naming its viewer part (decision 021). */
const ROUTE = "routes/tag";

/** A tag's published posts, newest first (DESIGN.md 10, "Writing"). */
export async function loader({ context, request, params }: Route.LoaderArgs) {
  const tag = normalizeTag(params.name);
  if (!isTag(tag)) throw data(null, { status: 404 });
  const page = pageFrom(request.url);
  // Tags match in any case: another spelling is the tag's own page.
  if (tag !== params.name) {
    throw redirect(`${tagPath(tag)}${page > 1 ? `?page=${String(page)}` : ""}`);
  }
  const [posts, total] = await Promise.all([
    listPosts(context.deps, { tag }, page),
    countPosts(context.deps, { tag }),
  ]);
  // A tag no published post carries is no page.
  if (total === 0) throw data(null, { status: 404 });
  return {
    tag,
    total,
    posts: cardsOf(posts),
    page,
    pages: Math.ceil(total / PAGE_SIZE),
    site: context.site,
    saved: await savedPart(context, ROUTE, posts),
  };
}

export const meta = ({ loaderData: data }: Route.MetaArgs) => [
  ...pageMeta(data.site, {
    title: `#${data.tag}`,
    description: `Posts tagged ${data.tag} on ${data.site.title}.`,
    path: tagPath(data.tag),
  }),
  ...feedLinks(`tag=${encodeURIComponent(data.tag)}`, `#${data.tag}`),
];

export default function Tag({ loaderData }: Route.ComponentProps) {
  const { tag, total, posts, page, pages, saved } = loaderData;
  return (
    <>
      <h1 className="page-title">#{tag}</h1>
      <p className="muted">
        {total} {total === 1 ? "post" : "posts"} tagged {tag}
      </p>
      <PostGrid posts={posts} actions={savedIslands(ROUTE, saved)} />
      <Pager page={page} pages={pages} path={tagPath(tag)} />
    </>
  );
}
