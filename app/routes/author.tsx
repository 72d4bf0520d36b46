import { data, Link } from "react-router";
import { PAGE_SIZE } from "../../contract/limits.js";
import { authorPath, profilePath } from "../../contract/page-paths.js";
import { countPosts, listPosts } from "../../core/posts/posts-service.js";
import { findAuthorByUsername, getProfile } from "../../core/users/users-service.js";
import { SubscribeForm } from "../features/newsletter/subscribe-form.js";
import { pageFrom, Pager } from "../features/posts/pager.js";
import { cardsOf, NoPosts, PostGrid } from "../features/posts/post-card.js";
import { savedIslands } from "../features/reading/bookmark-button.js";
import { savedPart } from "../features/reading/saved.server.js";
import { PersonHeader } from "../features/users/social-links.js";
import { isMember } from "../features/viewer/viewer-part.server.js";
import { feedLinks } from "../feed-links.js";
import { pageMeta } from "../meta.js";
import type { Route } from "./+types/author";

/** This route's id, naming its viewer part (decision 021). */
const ROUTE = "routes/author";

/**
 * An author's public page (DESIGN.md 11, "Public author pages"): `/@username`, the same for
 * everyone, visitors included. Any other one-segment address no route knows is a 404 here.
 */
export async function loader({ context, params, request }: Route.LoaderArgs) {
  const username = params.handle.startsWith("@") ? params.handle.slice(1) : "";
  const id = username === "" ? undefined : await findAuthorByUsername(context.deps, username);
  if (id === undefined) throw data(null, { status: 404 });
  const { deps } = context;
  const page = pageFrom(request.url);
  const filter = { userId: id };
  const [profile, posts, total] = await Promise.all([
    getProfile(deps, undefined, id, { withPosts: false }),
    listPosts(deps, filter, page),
    countPosts(deps, filter),
  ]);
  return {
    site: context.site,
    profile,
    posts: cardsOf(posts),
    total,
    page,
    pages: Math.ceil(total / PAGE_SIZE),
    member: isMember(context),
    saved: await savedPart(context, ROUTE, posts),
  };
}

export const meta = ({ loaderData }: Route.MetaArgs) => [
  ...pageMeta(loaderData.site, {
    title: loaderData.profile.username,
    description:
      loaderData.profile.bio || `${loaderData.profile.username} on ${loaderData.site.title}`,
    path: authorPath(loaderData.profile.username),
  }),
  ...feedLinks(`author=${loaderData.profile._id}`, loaderData.profile.username),
];

export default function Author({ loaderData }: Route.ComponentProps) {
  const { profile, posts, total, page, pages, member, saved } = loaderData;
  const path = authorPath(profile.username);
  return (
    <>
      <PersonHeader person={profile}>
        <p className="muted">
          {total} {total === 1 ? "post" : "posts"} ·{" "}
          <a href={`/rss.xml?author=${encodeURIComponent(profile._id)}`}>RSS feed</a>
          {member ? (
            <>
              {" "}
              · <Link to={profilePath(profile._id)}>Full profile</Link>
            </>
          ) : null}
        </p>
      </PersonHeader>
      <SubscribeForm
        id="subscribe-author"
        scope={{ authorId: profile._id, name: profile.username }}
      />
      <section aria-labelledby="author-posts">
        <h2 id="author-posts" className="section-title">
          Posts
        </h2>
        {posts.length === 0 ? (
          <NoPosts />
        ) : (
          <PostGrid posts={posts} actions={savedIslands(ROUTE, saved)} />
        )}
        <Pager page={page} pages={pages} path={path} />
      </section>
    </>
  );
}
