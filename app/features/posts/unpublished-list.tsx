import { Link } from "react-router";
import type { CardPost } from "./post-card.js";
import { LocalTime, STATUS_LABELS } from "./publish-controls.js";
import { postPath } from "../../../contract/page-paths.js";

/** The lists of a profile page: its published posts, and for its author (and admins) the rest. */
export const TABS = {
  posts: { label: "Posts", title: "User Posts", status: "published", empty: "" },
  drafts: { label: "Drafts", title: "Drafts", status: "draft", empty: "No drafts." },
  scheduled: {
    label: "Scheduled",
    title: "Scheduled",
    status: "scheduled",
    empty: "No scheduled posts.",
  },
} as const;

export type ProfileTab = keyof typeof TABS;
export const PROFILE_TABS = Object.keys(TABS) as ProfileTab[];

/** `?tab=drafts|scheduled`; anything else is the published posts. */
export function tabFrom(url: string): ProfileTab {
  const tab = new URL(url).searchParams.get("tab");
  return tab === "drafts" || tab === "scheduled" ? tab : "posts";
}

/** Drafts or scheduled posts, each with its state and its time on the reader's clock. */
export function UnpublishedList({ posts, empty }: { posts: CardPost[]; empty: string }) {
  if (posts.length === 0) return <p className="muted">{empty}</p>;
  return (
    <ul className="unpublished-list">
      {posts.map((post) => (
        <li key={post._id}>
          <Link to={postPath(post._id)}>{post.title}</Link>
          <span className="muted">
            {STATUS_LABELS[post.status]}
            {post.status === "scheduled" && post.publishAt ? (
              <>
                {" "}
                for <LocalTime iso={post.publishAt} />
              </>
            ) : (
              <>
                , last saved <LocalTime iso={post.updatedAt} />
              </>
            )}
          </span>
        </li>
      ))}
    </ul>
  );
}
