import { PAGE_SIZE } from "../../contract/limits.js";
import { countBookmarks, listBookmarks } from "../../core/bookmarks/bookmarks-service.js";
import { requireViewer } from "../features/auth/guards.server.js";
import { pageFrom, Pager } from "../features/posts/pager.js";
import { PostGrid } from "../features/posts/post-card.js";
import { saveButtons } from "../features/reading/bookmark-button.js";
import { pageMeta } from "../meta.js";
import type { Route } from "./+types/reading-list";

/** The reader's saved posts, most recently saved first (decision 016). */
export async function loader({ context, request }: Route.LoaderArgs) {
  const viewer = requireViewer(context, "/reading-list");
  const page = pageFrom(request.url);
  const [posts, total] = await Promise.all([
    listBookmarks(context.deps, viewer.actor, page),
    countBookmarks(context.deps, viewer.actor),
  ]);
  return { site: context.site, posts, page, pages: Math.ceil(total / PAGE_SIZE) };
}

export const meta = ({ loaderData }: Route.MetaArgs) => [
  ...pageMeta(loaderData.site, {
    title: "Reading list",
    description: "The posts you saved for later.",
    path: "/reading-list",
  }),
  { name: "robots", content: "noindex" },
];

export default function ReadingList({ loaderData }: Route.ComponentProps) {
  const { posts, page, pages } = loaderData;
  return (
    <>
      <h1 className="page-title">Reading list</h1>
      {posts.length === 0 ? (
        <p className="muted">Nothing saved yet. Use Save on a post to keep it here.</p>
      ) : (
        <PostGrid posts={posts} actions={saveButtons(posts.map((post) => post._id))} />
      )}
      <Pager page={page} pages={pages} path="/reading-list" />
    </>
  );
}
