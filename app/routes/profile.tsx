import type { ReactNode } from "react";
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
import { cardsOf, NoPosts, PostGrid } from "../features/posts/post-card.js";
import {
  PROFILE_TABS,
  tabFrom,
  TABS,
  UnpublishedList,
  type ProfileTab,
} from "../features/posts/unpublished-list.js";
import { PersonHeader } from "../features/users/social-links.js";
import { saveButtons, savedIslands, type SavedData } from "../features/reading/bookmark-button.js";
import { FollowButton, FollowCounts } from "../features/reading/follow-button.js";
import { savedOnPage } from "../features/reading/saved.server.js";
import { savedAmong } from "../../core/bookmarks/bookmarks-service.js";
import { followFacts } from "../../core/follows/follows-service.js";
import { Island } from "../features/viewer/islands.js";
import { viewerPart } from "../features/viewer/viewer-part.server.js";
import publishingStyles from "../features/posts/publishing.css?url";
import { ReportMenu } from "../features/reports/report-menu.js";
import { feedLinks } from "../feed-links.js";
import { pageMeta } from "../meta.js";
import { EditIcon } from "../ui/icons.js";
import type { Route } from "./+types/profile";
import { profilePath } from "../../contract/page-paths.js";
import type { LimitName } from "../../contract/site-host.js";

export const links: Route.LinksFunction = () => [{ rel: "stylesheet", href: publishingStyles }];

/** This route's id, naming its viewer part (decision 021). */
const ROUTE = "routes/profile";

/** What of a profile page is the viewer's own when they are neither its owner nor an admin. */
interface ProfileViewerData extends SavedData {
  following: boolean;
}

export async function loader({ context, params, request }: Route.LoaderArgs) {
  // A shell is the page for every member who is neither the owner nor an admin: the host renders
  // the page whole for those two (server/web/member-pages.ts), and for visitors none is made.
  const viewer = context.shell ? undefined : requireViewer(context, profilePath(params.id));
  const page = pageFrom(request.url);
  const { deps } = context;
  try {
    // Drafts and scheduled posts are listed to their author and admins alone (decision 011), and
    // the e-mail shown to them alone; what anyone else sees is the same for all members.
    const seesUnpublished = canSeeUnpublishedOf(viewer?.actor, params.id);
    const profile = seesUnpublished
      ? await getProfile(deps, viewer?.actor, params.id, { withPosts: false })
      : await getProfile(deps, undefined, params.id, { withPosts: false });
    const tab = seesUnpublished ? tabFrom(request.url) : "posts";
    const filter = { userId: profile._id, status: TABS[tab].status };
    const [posts, total] = await Promise.all([
      listPosts(deps, filter, page),
      countPosts(deps, filter),
    ]);
    const isOwner = viewer !== undefined && canEditProfile(viewer.actor, profile._id);
    const ids = posts.map((post) => post._id);
    return {
      site: context.site,
      profile,
      posts: cardsOf(posts),
      total,
      page,
      pages: Math.ceil(total / PAGE_SIZE),
      isOwner,
      tab,
      seesUnpublished,
      // The owner's page and an admin's are theirs alone, rendered whole: their Save buttons and
      // Follow state are read here. Anyone else's are islands of the viewer's part.
      saved: seesUnpublished && tab === "posts" ? await savedOnPage(context, posts) : undefined,
      following:
        seesUnpublished && !isOwner && viewer
          ? (await followFacts(deps, viewer.actor, profile._id)).followedByYou === true
          : undefined,
      viewer: seesUnpublished
        ? undefined
        : await viewerPart(context, ROUTE, async (reader): Promise<ProfileViewerData> => ({
            saved: await savedAmong(deps, reader.actor, ids),
            following: (await followFacts(deps, reader.actor, profile._id)).followedByYou === true,
          })),
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
        return context.outsideSlot(() =>
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

export const meta = ({ loaderData }: Route.MetaArgs) => [
  ...pageMeta(loaderData.site, {
    title: loaderData.profile.username,
    description:
      loaderData.profile.bio || `${loaderData.profile.username} on ${loaderData.site.title}`,
    path: profilePath(loaderData.profile._id),
  }),
  ...feedLinks(`author=${loaderData.profile._id}`, loaderData.profile.username),
];

export default function Profile({ loaderData }: Route.ComponentProps) {
  const { profile, posts, total, page, pages, isOwner, tab, seesUnpublished, saved, following } =
    loaderData;
  /** A part of the page that is the viewer's own (decision 021). */
  const island = (render: (data: ProfileViewerData | undefined) => ReactNode) =>
    loaderData.viewer === undefined ? null : (
      <Island<ProfileViewerData> route={ROUTE} part={loaderData.viewer}>
        {render}
      </Island>
    );
  const tabPath = (name: ProfileTab) =>
    profilePath(profile._id, name === "posts" ? undefined : name);
  const result = useActionData<typeof action>();
  useToastOn(result);
  return (
    <>
      <PersonHeader person={profile}>
        <FollowCounts
          followersCount={profile.followersCount}
          followingCount={profile.followingCount}
        />
        {isOwner ? null : following !== undefined ? (
          <FollowButton userId={profile._id} username={profile.username} following={following} />
        ) : (
          island((mine) => (
            <FollowButton
              userId={profile._id}
              username={profile.username}
              following={mine?.following ?? false}
            />
          ))
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
          </div>
        ) : (
          <ReportMenu target={{ userId: profile._id }} what="user" />
        )}
      </PersonHeader>
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
            <PostGrid
              posts={posts}
              actions={
                loaderData.viewer === undefined
                  ? saveButtons(saved)
                  : savedIslands(ROUTE, loaderData.viewer)
              }
            />
          )
        ) : (
          <UnpublishedList posts={posts} empty={TABS[tab].empty} />
        )}
        <Pager page={page} pages={pages} path={tabPath(tab)} />
      </section>
      {/* Apart from the everyday actions, at the end, where nobody presses it on the way. */}
      {isOwner ? (
        <section aria-labelledby="danger-zone" className="danger-zone">
          <h2 id="danger-zone" className="section-title">
            Delete account
          </h2>
          <p className="muted">Your posts, comments and likes go with it. This cannot be undone.</p>
          <DeleteProfile />
        </section>
      ) : null}
    </>
  );
}
