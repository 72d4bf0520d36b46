import type { ReactNode } from "react";
import { Link, useRouteLoaderData } from "react-router";
import { dateTime, shortDate } from "../../ui/format.js";
import { authorPath, profilePath } from "../../../contract/page-paths.js";
import type { loader as rootLoader } from "../../root.js";

/** The author's page for this viewer: the profile for members, the public page for visitors. */
export function useAuthorLink(user: { _id: string; username: string }) {
  const member = useRouteLoaderData<typeof rootLoader>("root")?.member ?? false;
  return member ? profilePath(user._id) : authorPath(user.username);
}

/** Author photo, 'By' and the author's name (to their page), the date, and what follows. */
export function Byline(props: {
  user: { _id: string; username: string; profilePhoto: { url: string } };
  date: string;
  photoSize?: number;
  /** The post's own page gives the time of day too; cards keep SPEC's short date. */
  withTime?: boolean;
  children?: ReactNode;
}) {
  const size = String(props.photoSize ?? 28);
  const authorLink = useAuthorLink(props.user);
  return (
    <div className="byline">
      <img
        src={props.user.profilePhoto.url}
        alt=""
        width={size}
        height={size}
        className="avatar"
        loading="lazy"
      />
      <span>
        By <Link to={authorLink}>{props.user.username}</Link>
      </span>
      <time dateTime={props.date}>
        {props.withTime ? dateTime(props.date) : shortDate(props.date)}
      </time>
      {props.children}
    </div>
  );
}
