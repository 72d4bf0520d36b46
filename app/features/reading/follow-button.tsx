import { ToggleForm } from "./toggle-form.js";

/** Follow / Following (pressed): on profiles and by an author's name on their posts. */
export function FollowButton(props: { userId: string; username: string; following: boolean }) {
  return (
    <ToggleForm action="/follow" fields={{ userId: props.userId }}>
      <button
        type="submit"
        className={`button button-small${props.following ? " button-ghost" : ""}`}
        aria-pressed={props.following}
        aria-label={`${props.following ? "Following" : "Follow"} ${props.username}`}
      >
        {props.following ? "Following" : "Follow"}
      </button>
    </ToggleForm>
  );
}

/** A profile's follower and following counts. */
export function FollowCounts(props: { followersCount: number; followingCount: number }) {
  const { followersCount, followingCount } = props;
  return (
    <p className="follow-counts muted">
      <span>
        <strong>{followersCount}</strong> {followersCount === 1 ? "follower" : "followers"}
      </span>
      <span>
        <strong>{followingCount}</strong> following
      </span>
    </p>
  );
}
