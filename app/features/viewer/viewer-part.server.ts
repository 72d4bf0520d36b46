import type { AppLoadContext } from "react-router";
import { viewerPartText, type ViewerPart } from "../../../contract/viewer-part.js";
import type { Viewer } from "../../../contract/site-host.js";

/**
 * Whether the page is for a signed-in member: one in particular, or any of them (a shell, the
 * page rendered once for every member, decision 021).
 */
export const isMember = (context: AppLoadContext) =>
  context.viewer !== undefined || context.shell !== undefined;

/**
 * The viewer's part of a route's data: what `compute` reads for them, as the text its islands
 * read. In a shell, `compute` is kept for the host to run for each viewer, and a marker stands in
 * the data; for a visitor there is none. `compute` may read only the viewer and what the shared
 * data it closes over says (never the request: a shell is made for one request and served to
 * all).
 */
export async function viewerPart<T>(
  context: AppLoadContext,
  route: string,
  compute: (viewer: Viewer) => Promise<T>,
): Promise<ViewerPart> {
  if (context.shell) {
    context.shell.parts.set(route, compute);
    return context.shell.marker(`part-${route}`);
  }
  if (!context.viewer) return undefined;
  return viewerPartText(route, await compute(context.viewer));
}
