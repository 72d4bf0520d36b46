import { data } from "react-router";
import { PAGE_SIZE } from "../../contract/limits.js";
import { countPosts, listPosts } from "../../core/posts/posts-service.js";
import { DomainError } from "../../core/shared/errors.js";
import { getProfile } from "../../core/users/users-service.js";
import { requireViewer } from "../features/auth/guards.server.js";
import { pageFrom, Pager } from "../features/posts/pager.js";
import { NoPosts, PostGrid } from "../features/posts/post-card.js";
import { SocialLinks } from "../features/users/social-links.js";
import { pageMeta } from "../meta.js";
import type { Route } from "./+types/profile";

export async function loader({ context, params, request }: Route.LoaderArgs) {
  const viewer = requireViewer(context);
  const page = pageFrom(request.url);
  try {
    const profile = await getProfile(context.deps, viewer.actor, params.id, { withPosts: false });
    const filter = { userId: profile._id };
    const [posts, total] = await Promise.all([
      listPosts(context.deps, filter, page),
      countPosts(context.deps, filter),
    ]);
    return { site: context.site, profile, posts, total, page, pages: Math.ceil(total / PAGE_SIZE) };
  } catch (error) {
    if (error instanceof DomainError && error.kind === "not_found")
      throw data(null, { status: 404 });
    throw error;
  }
}

export const meta = ({ loaderData }: Route.MetaArgs) =>
  pageMeta(loaderData.site, {
    title: loaderData.profile.username,
    description:
      loaderData.profile.bio || `${loaderData.profile.username} on ${loaderData.site.title}`,
    path: `/profile/${loaderData.profile._id}`,
  });

export default function Profile({ loaderData }: Route.ComponentProps) {
  const { profile, posts, total, page, pages } = loaderData;
  return (
    <>
      <section className="profile">
        <img
          src={profile.profilePhoto.url}
          alt={profile.username}
          width="160"
          height="160"
          className="intro-photo"
        />
        <h1>{profile.username}</h1>
        {profile.bio ? <p className="lead">{profile.bio}</p> : null}
        <SocialLinks links={profile.socialMedia} />
        <p className="muted">
          {total} {total === 1 ? "article" : "articles"}
        </p>
      </section>
      <section aria-labelledby="user-posts">
        <h2 id="user-posts" className="section-title">
          User Posts
        </h2>
        {posts.length === 0 ? <NoPosts /> : <PostGrid posts={posts} />}
        <Pager page={page} pages={pages} path={`/profile/${profile._id}`} />
      </section>
    </>
  );
}
