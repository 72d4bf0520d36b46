import { Link } from "react-router";
import { listPosts } from "../../core/posts/posts-service.js";
import { getSiteOwner } from "../../core/users/users-service.js";
import { PostGrid } from "../features/posts/post-card.js";
import { pageMeta } from "../meta.js";
import { SocialLinks } from "../features/users/social-links.js";
import type { Route } from "./+types/home";

export async function loader({ context }: Route.LoaderArgs) {
  const [posts, owner] = await Promise.all([
    listPosts(context.deps, {}, 1),
    getSiteOwner(context.deps),
  ]);
  return { posts, owner, site: context.site };
}

export const meta = ({ loaderData }: Route.MetaArgs) =>
  pageMeta(loaderData.site, { description: loaderData.site.welcome, path: "/" });

export default function Home({ loaderData }: Route.ComponentProps) {
  const { posts, owner, site } = loaderData;
  return (
    <>
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
