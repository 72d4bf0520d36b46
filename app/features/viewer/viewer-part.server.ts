import type { AppLoadContext } from "react-router";
import { viewerPartText, type ViewerPart } from "../../../contract/viewer-part.js";
import type { LivePartRead, Viewer } from "../../../contract/site-host.js";

/**
 * Whether the page is for a signed-in member: one in particular, or any of them (a shell, the
 * page rendered once for every member, decision 021).
 */
export const isMember = (context: AppLoadContext) =>
  context.viewer !== undefined || context.shell?.forMembers === true;

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
  if (context.shell?.forMembers) {
    context.shell.parts.set(route, compute);
    return context.shell.marker(`part-${route}`);
  }
  // A visitors' shell has no viewer, as a visitor's page has none.
  if (!context.viewer) return undefined;
  return viewerPartText(route, await compute(context.viewer));
}

/**
 * What a write of the page's post's likes or comments changes on it (decision 029), the same for every
 * reader: what `read` gives, as the text its live islands read. In a shell (a member's or a
 * visitor's), `read` is kept for the host to run once per state of what `keptBy` names (the post's
 * likes and comments, or its comments alone), and a marker stands in the data, so such a write
 * makes no page again. `read` may read only what the shared data it closes over says (never the
 * request, never a viewer).
 */
export async function livePart<T>(
  context: AppLoadContext,
  part: {
    name: string;
    keptBy: LivePartRead["keptBy"];
    read: () => Promise<T>;
    /** What a page rendered whole reads instead, from what its loader has read already. */
    readNow?: () => Promise<T>;
  },
): Promise<string> {
  if (context.shell) {
    context.shell.liveParts.set(part.name, { read: part.read, keptBy: part.keptBy });
    return context.shell.marker(`part-${part.name}`);
  }
  return viewerPartText(part.name, await (part.readNow ?? part.read)());
}
