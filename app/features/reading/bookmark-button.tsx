import type { ReactNode } from "react";
import { BookmarkIcon } from "../../ui/icons.js";
import { ToggleForm } from "./toggle-form.js";

/** Save / Saved (pressed): keeps a post on the reader's reading list. */
export function BookmarkButton(props: { postId: string; title: string; saved: boolean }) {
  return (
    <ToggleForm action="/bookmark" fields={{ postId: props.postId }}>
      <button
        type="submit"
        className={`bookmark-button${props.saved ? " saved" : ""}`}
        aria-pressed={props.saved}
        title={props.saved ? "Remove from your reading list" : "Save to your reading list"}
      >
        <BookmarkIcon filled={props.saved} /> {props.saved ? "Saved" : "Save"}
        <span className="visually-hidden">: {props.title}</span>
      </button>
    </ToggleForm>
  );
}

/**
 * The Save buttons of a page's post cards, for a signed-in reader (`saved`: the ids they keep);
 * none for visitors, whose pages are the same for everyone.
 */
export function saveButtons(saved: string[] | undefined) {
  if (!saved) return undefined;
  const kept = new Set(saved);
  return (post: { _id: string; title: string }): ReactNode => (
    <BookmarkButton postId={post._id} title={post.title} saved={kept.has(post._id)} />
  );
}
