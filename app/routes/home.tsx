import { Link } from "react-router";
import { PAGE_SIZE } from "../../contract/limits.js";
import { countPosts, listPosts } from "../../core/posts/posts-service.js";
import { getSiteOwner } from "../../core/users/users-service.js";
import { pageFrom, Pager } from "../features/posts/pager.js";
import { cardsOf, PostGrid } from "../features/posts/post-card.js";
import { savedIslands } from "../features/reading/bookmark-button.js";
import { savedPart } from "../features/reading/saved.server.js";
import { isMember } from "../features/viewer/viewer-part.server.js";
import { pageMeta } from "../meta.js";
import { SocialLinks } from "../features/users/social-links.js";
import { returnPath, signInReason } from "../features/auth/return-path.js";
import { SubscribeForm } from "../features/newsletter/subscribe-form.js";
import type { Route } from "./+types/home";

/** This route's id, naming its viewer part (decision 021). */
const ROUTE = "routes/home";

/** A signed-in reader's home has a "Following" tab: their writers' posts (decision 016). */
const FOLLOWING_PATH = "/?tab=following";

export async function loader({ context, request }: Route.LoaderArgs) {
  const actor = context.viewer?.actor;
  const url = new URL(request.url);
  const following = actor !== undefined && url.searchParams.get("tab") === "following";
  // A visitor's home is the same for everyone (kept and shared): the recent posts alone.
  const page = following ? pageFrom(request.url) : 1;
  const filter = following ? { followedBy: actor.id } : {};
  const [posts, owner, total] = await Promise.all([
    listPosts(context.deps, filter, page),
    getSiteOwner(context.deps),
    following ? countPosts(context.deps, filter) : 0,
  ]);
  const from = returnPath(url.searchParams.get("from"));
  const member = isMember(context);
  // A signed-in page a visitor was sent home from (SPEC.md 2 sends them here): home says why.
  const signInAsked = !member && from ? signInReason(from) : undefined;
  const saved = await savedPart(context, ROUTE, posts);
  const feed = following ? { page, pages: Math.ceil(total / PAGE_SIZE) } : undefined;
  return {
    posts: cardsOf(posts),
    owner,
    site: context.site,
    signInAsked,
    saved,
    signedIn: member,
    feed,
  };
}

export const meta = ({ loaderData }: Route.MetaArgs) =>
  pageMeta(loaderData.site, { description: loaderData.site.welcome, path: "/" });

export default function Home({ loaderData }: Route.ComponentProps) {
  const { posts, owner, site, signInAsked, saved, signedIn, feed } = loaderData;
  return (
    <>
      {signInAsked ? (
        <p role="status" className="notice notice-page-top">
          {signInAsked.reason} <Link to={signInAsked.login}>{signInAsked.back}</Link>
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
      {signedIn ? (
        <nav aria-label="Home tabs" className="tab-links">
          <Link to="/" aria-current={feed ? undefined : "page"}>
            Recent
          </Link>
          <Link to={FOLLOWING_PATH} aria-current={feed ? "page" : undefined}>
            Following
          </Link>
        </nav>
      ) : null}
      {feed ? (
        <section aria-labelledby="following">
          <h2 id="following" className="section-title">
            From writers you follow
          </h2>
          {posts.length === 0 ? (
            <p className="muted center">
              New posts of the writers you follow show here. Follow writers from their profiles.
            </p>
          ) : (
            <PostGrid posts={posts} actions={savedIslands(ROUTE, saved)} />
          )}
          <Pager page={feed.page} pages={feed.pages} path={FOLLOWING_PATH} />
        </section>
      ) : (
        <section aria-labelledby="recent">
          <h2 id="recent" className="section-title">
            {posts.length > 0 ? "Recent Posts" : "No Posts Yet"}
          </h2>
          <PostGrid posts={posts} actions={savedIslands(ROUTE, saved)} />
          {posts.length > 0 ? (
            <div className="center">
              <Link to="/posts" className="button">
                Load More
              </Link>
            </div>
          ) : null}
        </section>
      )}
      <SubscribeForm id="subscribe-home" scope={{ name: site.title }} />
    </>
  );
}
