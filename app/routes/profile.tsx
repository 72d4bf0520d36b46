import { data, Link, redirect, useActionData } from "react-router";
import { PAGE_SIZE } from "../../contract/limits.js";
import { canSeeUnpublishedOf } from "../../core/posts/policies.js";
import { countPosts, listPosts } from "../../core/posts/posts-service.js";
import { DomainError } from "../../core/shared/errors.js";
import { canEditProfile } from "../../core/users/policies.js";
import {
  deleteUser,
  getProfile,
  setProfilePhoto,
  updateProfile,
} from "../../core/users/users-service.js";
import { clearedSessionCookie } from "../features/auth/session-cookie.server.js";
import { flashCookie } from "../features/flash.server.js";
import { attempt, fail, failure, imageForm, limited } from "../features/forms/action.server.js";
import { DeleteProfile, EditProfile, PhotoUpload } from "../features/users/owner-tools.js";
import { profileValues } from "../features/users/profile-form.js";
import { useToastOn } from "../ui/toasts.js";
import { requireViewer } from "../features/auth/guards.server.js";
import { pageFrom, Pager } from "../features/posts/pager.js";
import { NoPosts, PostGrid } from "../features/posts/post-card.js";
import {
  PROFILE_TABS,
  tabFrom,
  TABS,
  UnpublishedList,
  type ProfileTab,
} from "../features/posts/unpublished-list.js";
import { SocialLinks } from "../features/users/social-links.js";
import { saveButtons } from "../features/reading/bookmark-button.js";
import { FollowButton, FollowCounts } from "../features/reading/follow-button.js";
import { savedOnPage } from "../features/reading/saved.server.js";
import publishingStyles from "../features/posts/publishing.css?url";
import { ReportMenu } from "../features/reports/report-menu.js";
import { pageMeta } from "../meta.js";
import { EditIcon } from "../ui/icons.js";
import type { LimitName } from "../context.js";
import type { Route } from "./+types/profile";

export const links: Route.LinksFunction = () => [{ rel: "stylesheet", href: publishingStyles }];

export async function loader({ context, params, request }: Route.LoaderArgs) {
  const viewer = requireViewer(context, `/profile/${encodeURIComponent(params.id)}`);
  const page = pageFrom(request.url);
  try {
    const profile = await getProfile(context.deps, viewer.actor, params.id, { withPosts: false });
    // Drafts and scheduled posts are listed to their author and admins alone (decision 011).
    const seesUnpublished = canSeeUnpublishedOf(viewer.actor, profile._id);
    const tab = seesUnpublished ? tabFrom(request.url) : "posts";
    const filter = { userId: profile._id, status: TABS[tab].status };
    const [posts, total] = await Promise.all([
      listPosts(context.deps, filter, page),
      countPosts(context.deps, filter),
    ]);
    return {
      site: context.site,
      profile,
      posts,
      total,
      page,
      pages: Math.ceil(total / PAGE_SIZE),
      isOwner: canEditProfile(viewer.actor, profile._id),
      tab,
      seesUnpublished,
      saved: tab === "posts" ? await savedOnPage(context, posts) : undefined,
    };
  } catch (error) {
    if (error instanceof DomainError && error.kind === "not_found")
      throw data(null, { status: 404 });
    throw error;
  }
}

/** The rate limit each form of the page spends, as its API route does. */
const LIMIT_OF: Record<"photo" | "edit-profile" | "delete-profile", LimitName | undefined> = {
  photo: "upload",
  "edit-profile": "profile",
  "delete-profile": undefined,
};

export async function action({ request, context, params }: Route.ActionArgs) {
  const viewer = requireViewer(context);
  const { fields, image } = await imageForm(request);
  const intent = fields.intent;
  if (intent !== "photo" && intent !== "edit-profile" && intent !== "delete-profile") {
    return fail(failure(400, "Unknown action"));
  }
  const limit = LIMIT_OF[intent];
  const tooMany = limit ? await limited(context, limit) : undefined;
  if (tooMany) return tooMany;
  const { deps } = context;
  const result = await attempt(async (): Promise<{ message: string }> => {
    switch (intent) {
      case "photo":
        return context.outsideRenderSlot(() =>
          setProfilePhoto(deps, viewer.actor, image, request.signal),
        );
      case "edit-profile":
        await updateProfile(
          deps,
          viewer.actor,
          viewer,
          params.id,
          profileValues(Object.entries(fields)),
        );
        return { message: "profile updated successfully" };
      case "delete-profile":
        return deleteUser(deps, viewer.actor, params.id);
    }
  });
  if (!result.ok) return fail({ ...result, intent });
  if (intent === "delete-profile") {
    // SPEC.md 2: after deleting the profile, signed out and home, with the server's message.
    const headers = new Headers({ "Set-Cookie": flashCookie(result.value.message) });
    if (viewer.actor.id === params.id) {
      headers.append("Set-Cookie", clearedSessionCookie(context.secureCookies));
    }
    return redirect("/", { headers });
  }
  return { ok: true, intent, message: result.value.message, errors: {} };
}

export const meta = ({ loaderData }: Route.MetaArgs) =>
  pageMeta(loaderData.site, {
    title: loaderData.profile.username,
    description:
      loaderData.profile.bio || `${loaderData.profile.username} on ${loaderData.site.title}`,
    path: `/profile/${loaderData.profile._id}`,
  });

export default function Profile({ loaderData }: Route.ComponentProps) {
  const { profile, posts, total, page, pages, isOwner, tab, seesUnpublished, saved } = loaderData;
  const profilePath = `/profile/${profile._id}`;
  const tabPath = (name: ProfileTab) =>
    name === "posts" ? profilePath : `${profilePath}?tab=${name}`;
  const result = useActionData<typeof action>();
  useToastOn(result);
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
        <FollowCounts
          followersCount={profile.followersCount}
          followingCount={profile.followingCount}
        />
        {isOwner ? null : (
          <FollowButton
            userId={profile._id}
            username={profile.username}
            following={profile.followedByYou === true}
          />
        )}
        {tab === "posts" ? (
          <p className="muted">
            {total} {total === 1 ? "article" : "articles"}
          </p>
        ) : null}
        {isOwner && profile.pendingEmail ? (
          <p role="status" className="notice">
            We sent a link to {profile.pendingEmail}. Your email address changes when you open it.
          </p>
        ) : null}
        {isOwner ? (
          <div className="owner-tools">
            <Link to="/posts/create-post" className="button button-small">
              <EditIcon /> Write a post
            </Link>
            <PhotoUpload result={result} />
            <EditProfile profile={profile} result={result} key={profile.username + profile.bio} />
            <DeleteProfile />
          </div>
        ) : (
          <ReportMenu target={{ userId: profile._id }} what="user" />
        )}
      </section>
      {seesUnpublished ? (
        <nav aria-label="Posts by state" className="tab-links profile-tabs">
          {PROFILE_TABS.map((name) => (
            <Link key={name} to={tabPath(name)} aria-current={name === tab ? "page" : undefined}>
              {TABS[name].label}
            </Link>
          ))}
        </nav>
      ) : null}
      <section aria-labelledby="user-posts">
        <h2 id="user-posts" className="section-title">
          {TABS[tab].title}
        </h2>
        {tab === "posts" ? (
          posts.length === 0 ? (
            <NoPosts />
          ) : (
            <PostGrid posts={posts} actions={saveButtons(saved)} />
          )
        ) : (
          <UnpublishedList posts={posts} empty={TABS[tab].empty} />
        )}
        <Pager page={page} pages={pages} path={tabPath(tab)} />
      </section>
    </>
  );
}
