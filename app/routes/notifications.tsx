import { Link } from "react-router";
import { PAGE_SIZE } from "../../contract/limits.js";
import {
  countUnread,
  markNotificationsRead,
  notificationsPage,
} from "../../core/notifications/notifications-service.js";
import { requireViewer } from "../features/auth/guards.server.js";
import { pageFrom, Pager } from "../features/posts/pager.js";
import { pageMeta } from "../meta.js";
import { shortDate } from "../ui/format.js";
import type { Route } from "./+types/notifications";
import { postPath, profilePath } from "../../contract/page-paths.js";

/**
 * A page of the reader's notifications. Opening it marks the ones it shows read: they still show
 * as new on this view, and the bell counts what is left.
 */
export async function loader({ context, request }: Route.LoaderArgs) {
  const viewer = requireViewer(context, "/notifications");
  const page = pageFrom(request.url);
  const { total, notifications } = await notificationsPage(context.deps, viewer.actor, page);
  const shownUnread = notifications.filter((n) => !n.read).map((n) => n._id);
  if (shownUnread.length > 0) {
    await markNotificationsRead(context.deps, viewer.actor, { ids: shownUnread });
  }
  return {
    site: context.site,
    notifications,
    page,
    pages: Math.ceil(total / PAGE_SIZE),
    unread: await countUnread(context.deps, viewer.actor),
  };
}

export const meta = ({ loaderData }: Route.MetaArgs) => [
  ...pageMeta(loaderData.site, {
    title: "Notifications",
    description: "What happened around your posts and comments.",
    path: "/notifications",
  }),
  { name: "robots", content: "noindex" },
];

type Shown = Route.ComponentProps["loaderData"]["notifications"][number];

/** Who did what, linking to where it happened. */
function Saying({ notification: n }: { notification: Shown }) {
  const who = <Link to={profilePath(n.actor._id)}>{n.actor.username}</Link>;
  const post =
    n.postId === undefined ? null : (
      <Link to={`${postPath(n.postId)}${n.commentId ? "#comments-title" : ""}`}>
        {n.postTitle ?? "your post"}
      </Link>
    );
  switch (n.kind) {
    case "comment":
      return (
        <>
          {who} commented on {post}
        </>
      );
    case "reply":
      return (
        <>
          {who} replied to your comment on {post}
        </>
      );
    case "like":
      return (
        <>
          {who} liked {post}
        </>
      );
    case "follow":
      return <>{who} started following you</>;
  }
}

export default function Notifications({ loaderData }: Route.ComponentProps) {
  const { notifications, page, pages } = loaderData;
  return (
    <>
      <h1 className="page-title">Notifications</h1>
      {notifications.length === 0 ? (
        <p className="muted">
          Nothing yet. When someone comments, replies, likes or follows, it shows here.
        </p>
      ) : (
        <ul className="notification-list">
          {notifications.map((n) => (
            <li key={n._id} className={n.read ? undefined : "unread"}>
              <img
                src={n.actor.profilePhoto.url}
                alt=""
                width="32"
                height="32"
                className="avatar"
                loading="lazy"
              />
              <div>
                <p>
                  <Saying notification={n} />
                  {n.read ? null : <span className="visually-hidden"> (new)</span>}
                </p>
                <time dateTime={n.createdAt} className="muted">
                  {shortDate(n.createdAt)}
                </time>
              </div>
            </li>
          ))}
        </ul>
      )}
      <Pager page={page} pages={pages} path="/notifications" label="Notification pages" />
    </>
  );
}
