import { PAGE_SIZE } from "../../contract/limits.js";
import { countPosts, listPosts } from "../../core/posts/posts-service.js";
import { categoryPath } from "../features/layout/header.js";
import { pageFrom, Pager } from "../features/posts/pager.js";
import { NoPosts, PostGrid } from "../features/posts/post-card.js";
import { pageMeta } from "../meta.js";
import type { Route } from "./+types/category";

export async function loader({ context, request, params }: Route.LoaderArgs) {
  const page = pageFrom(request.url);
  const filter = { category: params.category };
  const [posts, total] = await Promise.all([
    listPosts(context.deps, filter, page),
    countPosts(context.deps, filter),
  ]);
  return {
    category: params.category,
    posts,
    page,
    pages: Math.ceil(total / PAGE_SIZE),
    site: context.site,
  };
}

export const meta = ({ loaderData: data }: Route.MetaArgs) =>
  pageMeta(data.site, {
    title: data.category,
    description: `Posts in ${data.category} on ${data.site.title}.`,
    path: categoryPath(data.category),
  });

export default function Category({ loaderData }: Route.ComponentProps) {
  const { category, posts, page, pages } = loaderData;
  return (
    <>
      <h1 className="page-title">{category}</h1>
      {posts.length === 0 ? <NoPosts /> : <PostGrid posts={posts} />}
      <Pager page={page} pages={pages} path={categoryPath(category)} />
    </>
  );
}
