import type { AppLoadContext } from "react-router";
import { savedAmong } from "../../../core/bookmarks/bookmarks-service.js";
import type { ViewerPart } from "../../../contract/viewer-part.js";
import { viewerPart } from "../viewer/viewer-part.server.js";
import type { SavedData } from "./bookmark-button.js";

/**
 * Which of a page's posts the signed-in reader has saved, for its cards' Save buttons; undefined
 * for a visitor (no buttons: the page stays the same for everyone, and is kept).
 */
export async function savedOnPage(context: AppLoadContext, posts: { _id: string }[]) {
  const actor = context.viewer?.actor;
  if (!actor) return undefined;
  return savedAmong(
    context.deps,
    actor,
    posts.map((post) => post._id),
  );
}

/**
 * The same as the viewer's part of a page of posts (its cards' Save buttons are islands): which of
 * them they saved, read for each viewer of a shell (decision 021).
 */
export function savedPart(
  context: AppLoadContext,
  route: string,
  posts: { _id: string }[],
): Promise<ViewerPart> {
  const ids = posts.map((post) => post._id);
  return viewerPart(context, route, async (viewer): Promise<SavedData> => ({
    saved: await savedAmong(context.deps, viewer.actor, ids),
  }));
}
