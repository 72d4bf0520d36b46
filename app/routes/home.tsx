import { Link } from "react-router";
import { listPosts } from "../../core/posts/posts-service.js";
import { getSiteOwner } from "../../core/users/users-service.js";
import { PostGrid } from "../features/posts/post-card.js";
import { pageMeta } from "../meta.js";
import { SocialLinks } from "../features/users/social-links.js";
import { loginReturningTo, returnPath } from "../features/auth/return-path.js";
import type { Route } from "./+types/home";

/** An author profile a visitor was sent home from (SPEC.md 2 sends them here). */
const PROFILE_PATH = /^\/profile\/[^/?#]+$/;

export async function loader({ context, request }: Route.LoaderArgs) {
  const [posts, owner] = await Promise.all([
    listPosts(context.deps, {}, 1),
    getSiteOwner(context.deps),
  ]);
  const from = returnPath(new URL(request.url).searchParams.get("from"));
  const profileAsked = !context.viewer && from && PROFILE_PATH.test(from) ? from : undefined;
  return { posts, owner, site: context.site, profileAsked };
}

export const meta = ({ loaderData }: Route.MetaArgs) =>
  pageMeta(loaderData.site, { description: loaderData.site.welcome, path: "/" });

export default function Home({ loaderData }: Route.ComponentProps) {
  const { posts, owner, site, profileAsked } = loaderData;
  return (
    <>
      {profileAsked ? (
        <p role="status" className="notice notice-page-top">
          Log in to see author profiles.{" "}
          <Link to={loginReturningTo(profileAsked)}>Log in and go back to the profile</Link>
        </p>
      ) : null}
      <section className="intro">
        {owner ? (
          <img
            src={owner.profilePhoto.url}
            alt={owner.username}
            width="160"
            height="160"
            className="intro-photo"
          />
        ) : null}
        <div>
          <h1>{owner ? `Hi, I'm ${owner.username}` : site.title}</h1>
          <p className="lead">{site.welcome}</p>
          {owner ? <SocialLinks links={owner.socialMedia} /> : null}
        </div>
      </section>
      <section aria-labelledby="recent">
        <h2 id="recent" className="section-title">
          {posts.length > 0 ? "Recent Posts" : "No Posts Yet"}
        </h2>
        <PostGrid posts={posts} />
        {posts.length > 0 ? (
          <div className="center">
            <Link to="/posts" className="button">
              Load More
            </Link>
          </div>
        ) : null}
      </section>
    </>
  );
}
