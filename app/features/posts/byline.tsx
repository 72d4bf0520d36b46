import type { ReactNode } from "react";
import { Link } from "react-router";
import { dateTime, shortDate } from "../../ui/format.js";
import { profilePath } from "../../../contract/page-paths.js";

/** Author photo, 'By' and the author's name (to the profile), the date, and what follows. */
export function Byline(props: {
  user: { _id: string; username: string; profilePhoto: { url: string } };
  date: string;
  photoSize?: number;
  /** The post's own page gives the time of day too; cards keep SPEC's short date. */
  withTime?: boolean;
  children?: ReactNode;
}) {
  const size = String(props.photoSize ?? 28);
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
        By <Link to={profilePath(props.user._id)}>{props.user.username}</Link>
      </span>
      <time dateTime={props.date}>
        {props.withTime ? dateTime(props.date) : shortDate(props.date)}
      </time>
      {props.children}
    </div>
  );
}
