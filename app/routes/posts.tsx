import { PAGE_SIZE } from "../../contract/limits.js";
import { countPosts, listPosts } from "../../core/posts/posts-service.js";
import { pageFrom, Pager } from "../features/posts/pager.js";
import { cardsOf, NoPosts, PostGrid } from "../features/posts/post-card.js";
import { savedIslands } from "../features/reading/bookmark-button.js";
import { savedPart } from "../features/reading/saved.server.js";
import { pageMeta } from "../meta.js";
import type { Route } from "./+types/posts";

/** This route's id, naming its viewer part (decision 021). */
const ROUTE = "routes/posts";

export async function loader({ context, request }: Route.LoaderArgs) {
  const page = pageFrom(request.url);
  const [posts, total] = await Promise.all([
    listPosts(context.deps, {}, page),
    countPosts(context.deps),
  ]);
  const saved = await savedPart(context, ROUTE, posts);
  return {
    posts: cardsOf(posts),
    page,
    pages: Math.ceil(total / PAGE_SIZE),
    site: context.site,
    saved,
  };
}

export const meta = ({ loaderData: data }: Route.MetaArgs) =>
  pageMeta(data.site, {
    title: data.page > 1 ? `Posts, page ${String(data.page)}` : "Posts",
    description: `All posts on ${data.site.title}, newest first.`,
    path: data.page > 1 ? `/posts?page=${String(data.page)}` : "/posts",
  });

export default function Posts({ loaderData }: Route.ComponentProps) {
  const { posts, page, pages, saved } = loaderData;
  return (
    <>
      <h1 className="page-title">Posts</h1>
      {posts.length === 0 ? (
        <NoPosts />
      ) : (
        <PostGrid posts={posts} actions={savedIslands(ROUTE, saved)} />
      )}
      <Pager page={page} pages={pages} path="/posts" />
    </>
  );
}
