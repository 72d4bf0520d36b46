import { data, redirect } from "react-router";
import { PAGE_SIZE } from "../../contract/limits.js";
import { findCategoryByTitle } from "../../core/categories/categories-service.js";
import { countPosts, listPosts } from "../../core/posts/posts-service.js";
import { pageFrom, Pager } from "../features/posts/pager.js";
import { cardsOf, NoPosts, PostGrid } from "../features/posts/post-card.js";
import { savedIslands } from "../features/reading/bookmark-button.js";
import { savedPart } from "../features/reading/saved.server.js";
import { feedLinks } from "../feed-links.js";
import { pageMeta } from "../meta.js";
import type { Route } from "./+types/category";
import { categoryPath } from "../../contract/page-paths.js";

/** This route's id, naming its viewer part (decision 021). */
const ROUTE = "routes/category";

export async function loader({ context, request, params }: Route.LoaderArgs) {
  const page = pageFrom(request.url);
  const filter = { category: params.category };
  const [category, posts, total] = await Promise.all([
    findCategoryByTitle(context.deps, params.category),
    listPosts(context.deps, filter, page),
    countPosts(context.deps, filter),
  ]);
  // A page for a category, or for the posts that keep the title of one deleted since (DESIGN.md
  // 4: their tags still link here); any other text is not a page, whatever it says.
  if (category?.title !== params.category && total === 0) {
    if (!category) throw data(null, { status: 404 });
    // Another spelling of a category's title (case, spaces): its own page.
    const query = page > 1 ? `?page=${String(page)}` : "";
    throw redirect(`${categoryPath(category.title)}${query}`);
  }
  return {
    category: params.category,
    posts: cardsOf(posts),
    page,
    pages: Math.ceil(total / PAGE_SIZE),
    site: context.site,
    saved: await savedPart(context, ROUTE, posts),
  };
}

export const meta = ({ loaderData: data }: Route.MetaArgs) => [
  ...pageMeta(data.site, {
    title: data.category,
    description: `Posts in ${data.category} on ${data.site.title}.`,
    path: categoryPath(data.category),
  }),
  ...feedLinks(`category=${encodeURIComponent(data.category)}`, data.category),
];

export default function Category({ loaderData }: Route.ComponentProps) {
  const { category, posts, page, pages, saved } = loaderData;
  return (
    <>
      <h1 className="page-title">{category}</h1>
      {posts.length === 0 ? (
        <NoPosts />
      ) : (
        <PostGrid posts={posts} actions={savedIslands(ROUTE, saved)} />
      )}
      <Pager page={page} pages={pages} path={categoryPath(category)} />
    </>
  );
}
