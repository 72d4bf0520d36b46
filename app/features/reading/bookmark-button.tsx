import type { ReactNode } from "react";
import { BookmarkIcon } from "../../ui/icons.js";
import { Island } from "../viewer/islands.js";
import type { ViewerPart } from "../../../contract/viewer-part.js";
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

/** A page of posts' part for a signed-in viewer: which of its posts they keep. */
export interface SavedData {
  saved: string[];
}

/**
 * The Save buttons of a page's post cards as islands of the viewer's (`savedPart`), so the page
 * is rendered once for all members (decision 021); none for visitors.
 */
export function savedIslands(route: string, part: ViewerPart) {
  if (part === undefined) return undefined;
  return (post: { _id: string; title: string }): ReactNode => (
    <Island<SavedData> route={route} part={part}>
      {(data) => (
        <BookmarkButton
          postId={post._id}
          title={post.title}
          saved={data?.saved.includes(post._id) ?? false}
        />
      )}
    </Island>
  );
}
