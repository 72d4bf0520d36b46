import type { AppLoadContext } from "react-router";
import { savedAmong } from "../../../core/bookmarks/bookmarks-service.js";

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
