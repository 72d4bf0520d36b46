import { createContext, use, useContext, useMemo, type Context, type ReactNode } from "react";
import {
  UNSAFE_DataRouterContext,
  UNSAFE_DataRouterStateContext,
  UNSAFE_FetchersContext,
  UNSAFE_FrameworkContext,
  UNSAFE_LocationContext,
  UNSAFE_NavigationContext,
  UNSAFE_RouteContext,
  UNSAFE_ViewTransitionContext,
} from "react-router";
import type { ViewerPart } from "../../../contract/viewer-part.js";
import { ToastContext } from "../../ui/toasts.js";
import type { ShellRecorder } from "../../../contract/site-host.js";

/** The recorder of a shell render (server only); null everywhere else, the browser included. */
export const ShellContext = createContext<ShellRecorder | null>(null);

/**
 * Each route's part by route (server only), while the host renders a shell's islands for a
 * reader: an island inside a live island (a comment's tools) reads its viewer's part here, since
 * the part it was given in the shell is a marker.
 */
export const ComposingContext = createContext<((route: string) => unknown) | null>(null);

/**
 * The contexts an island's components read (React Router's, for links, forms and the location,
 * and the toasts), taken where the island sits in the shell so it renders alone exactly as it
 * would in place.
 */
const CARRIED: readonly Context<unknown>[] = [
  UNSAFE_DataRouterContext,
  UNSAFE_DataRouterStateContext,
  UNSAFE_FetchersContext,
  UNSAFE_FrameworkContext,
  UNSAFE_LocationContext,
  UNSAFE_NavigationContext,
  UNSAFE_RouteContext,
  UNSAFE_ViewTransitionContext,
  ToastContext,
] as readonly Context<unknown>[];

/** The viewer's part, parsed once per text; undefined for a visitor and in a shell. */
// The caller names the part's type (its loader's); JSON.parse itself cannot know it.
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters
export function useViewerData<T>(part: ViewerPart): T | undefined {
  const shell = useContext(ShellContext);
  return useMemo(
    () => (shell || part === undefined ? undefined : (JSON.parse(part) as { data: T }).data),
    [shell, part],
  );
}

/**
 * A part of a page that only its viewer sees (a Save button's state, the account menu). Rendered
 * in place for a visitor and in a page rendered for one viewer; in a shell, a marker stands in its
 * place and the island is recorded, with the contexts around it, for the host to render for each
 * viewer and put there. So an island must not use `useId` (its ids would differ alone), must
 * not sit beside text (React separates adjacent text with a comment that the marker would not
 * get), and its images must load lazily (React hoists a preload of an eager one into the head,
 * which the shell has already written). `route` names whose part `part` is, as the loader gave it
 * to `viewerPart`.
 */
// As useViewerData: the caller names the part's type.
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters
export function Island<T>(props: {
  route: string;
  part: ViewerPart;
  /**
   * A live island (decision 029): it reads what a post's likes or comments change, the same for
   * every reader (`livePart`), and is recorded in visitors' shells too.
   */
  live?: boolean;
  children: (data: T | undefined) => ReactNode;
}) {
  const shell = useContext(ShellContext);
  const composing = useContext(ComposingContext);
  const carried = CARRIED.map((context) => [context, use(context)] as const);
  // While composing, the part given in the shell is a marker: the host's is the one to read.
  const parsed = useViewerData<T>(composing ? undefined : props.part);
  const data = composing ? (composing(props.route) as T | undefined) : parsed;
  // A visitors' shell holds a visitor's islands rendered, as a visitor's page does.
  if (!shell || (!shell.forMembers && !props.live)) return props.children(data);
  const marker = shell.marker(`island-${String(shell.islands.length)}`);
  shell.islands.push({
    marker,
    route: props.route,
    live: props.live === true,
    render: (viewerData) =>
      carried.reduceRight<ReactNode>(
        (inner, [context, value]) => <context.Provider value={value}>{inner}</context.Provider>,
        props.children(viewerData as T | undefined),
      ),
  });
  return marker;
}
