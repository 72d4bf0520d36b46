import { useCallback, useEffect, useMemo, useState } from "react";
import {
  data,
  Form,
  isRouteErrorResponse,
  Link,
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  useNavigation,
  useRouteLoaderData,
  type ShouldRevalidateFunction,
} from "react-router";
import { listCategories } from "../core/categories/categories-service.js";
import { countUnread } from "../core/notifications/notifications-service.js";
import type { Route } from "./+types/root";
import { Footer } from "./features/layout/footer.js";
import { Header, type AccountData } from "./features/layout/header.js";
import { SideMenu } from "./features/layout/side-menu.js";
import { ArrowUpIcon, BlogIcon } from "./ui/icons.js";
import { useViewerData } from "./features/viewer/islands.js";
import { viewerPart } from "./features/viewer/viewer-part.server.js";
import { clearedFlashCookie, readFlash } from "./features/flash.server.js";
import { isMember } from "./features/viewer/viewer-part.server.js";
import { ToastProvider, useToastOn } from "./ui/toasts.js";
import { useShownTheme } from "./features/theme/theme-menu.js";
import stylesheet from "./styles.css?url";
import readingStyles from "./features/reading/reading.css?url";

export const links: Route.LinksFunction = () => [
  { rel: "stylesheet", href: stylesheet },
  { rel: "stylesheet", href: readingStyles },
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
  { rel: "alternate", type: "application/rss+xml", href: "/rss.xml", title: "RSS" },
  { rel: "alternate", type: "application/feed+json", href: "/feed.json", title: "JSON Feed" },
];

export async function loader({ context, request }: Route.LoaderArgs) {
  const flash = readFlash(request);
  const { deps } = context;
  return data(
    {
      site: context.site,
      nonce: context.cspNonce,
      theme: context.theme,
      categories: await listCategories(deps),
      // Who is signed in and the header bell's number (decision 016): the viewer's islands.
      viewer: await viewerPart(context, "root", async (viewer): Promise<AccountData> => ({
        user: viewer.user,
        unread: await countUnread(deps, viewer.actor),
      })),
      flash,
      // Whether the page is a member's (a shell serves them all): bylines lead members to the
      // profile, visitors to the public author page (DESIGN.md 11).
      member: isMember(context),
    },
    flash ? { headers: { "Set-Cookie": clearedFlashCookie } } : undefined,
  );
}

/** Passes the loader's Set-Cookie (the cleared flash) on to the page's response. */
export const headers: Route.HeadersFunction = ({ loaderHeaders }) => loaderHeaders;

/** Leaving the notifications page (which marks what it shows read), the bell counts again. */
export const shouldRevalidate: ShouldRevalidateFunction = ({
  currentUrl,
  defaultShouldRevalidate,
}) => defaultShouldRevalidate || currentUrl.pathname === "/notifications";

/** SPEC.md 9: swipe threshold 20 px, scroll-to-top after 150 px. */
const SWIPE_THRESHOLD = 20;
const SCROLL_TOP_THRESHOLD = 150;

function useSwipeToOpen(open: () => void) {
  useEffect(() => {
    let startX: number | undefined;
    const onStart = (event: TouchEvent) => {
      const touch = event.touches[0];
      startX = touch && touch.clientX < 40 ? touch.clientX : undefined;
    };
    const onMove = (event: TouchEvent) => {
      const touch = event.touches[0];
      if (startX !== undefined && touch && touch.clientX - startX >= SWIPE_THRESHOLD) {
        startX = undefined;
        open();
      }
    };
    window.addEventListener("touchstart", onStart, { passive: true });
    window.addEventListener("touchmove", onMove, { passive: true });
    return () => {
      window.removeEventListener("touchstart", onStart);
      window.removeEventListener("touchmove", onMove);
    };
  }, [open]);
}

/** The scroll-to-top button's square (styles.css: 44 px, 1rem from the corner). */
const SCROLL_TOP_SIZE = 44;
const SCROLL_TOP_INSET = 16;

/**
 * Whether one of a post's own controls (Like, Save, Share; a comment's Reply and Report) lies under
 * the scroll-to-top button's square. Only those: elsewhere (a list of cards, links wall to wall)
 * the button would never show.
 */
function coversControl() {
  const right = window.innerWidth - SCROLL_TOP_INSET;
  const bottom = window.innerHeight - SCROLL_TOP_INSET;
  const points = [
    [right - SCROLL_TOP_SIZE / 2, bottom - SCROLL_TOP_SIZE / 2],
    [right - 4, bottom - 4],
    [right - SCROLL_TOP_SIZE + 4, bottom - SCROLL_TOP_SIZE + 4],
    [right - SCROLL_TOP_SIZE + 4, bottom - 4],
    [right - 4, bottom - SCROLL_TOP_SIZE + 4],
  ] as const;
  return points.some(([x, y]) =>
    document
      .elementsFromPoint(x, y)
      .some(
        (element) =>
          !element.closest(".scroll-top, .toasts") &&
          element.closest(".likes, .comment-actions") !== null &&
          element.closest("a, button, summary") !== null,
      ),
  );
}

function ScrollToTop() {
  const [shown, setShown] = useState(false);
  useEffect(() => {
    let frame = 0;
    const onScroll = () => {
      cancelAnimationFrame(frame);
      // Once a frame: shown past the threshold, unless it would sit on something to press (Share
      // at the right edge of a phone): then it steps aside until that has scrolled on.
      frame = requestAnimationFrame(() => {
        setShown(window.scrollY > SCROLL_TOP_THRESHOLD && !coversControl());
      });
    };
    window.addEventListener("scroll", onScroll, { passive: true });
    return () => {
      cancelAnimationFrame(frame);
      window.removeEventListener("scroll", onScroll);
    };
  }, []);
  if (!shown) return null;
  return (
    <button
      type="button"
      className="scroll-top"
      aria-label="Scroll to top"
      onClick={() => {
        window.scrollTo({ top: 0, behavior: "smooth" });
      }}
    >
      <ArrowUpIcon />
    </button>
  );
}

/**
 * SPEC.md 3 keeps the signed-in user's public info in localStorage (`userInfo`); the token stays
 * in its httpOnly cookie, out of reach of scripts.
 */
function UserInfoSync({
  user,
}: {
  user: { _id: string; username: string; profilePhoto: { url: string } } | undefined;
}) {
  useEffect(() => {
    if (user) {
      localStorage.setItem(
        "userInfo",
        JSON.stringify({ _id: user._id, username: user.username, profilePhoto: user.profilePhoto }),
      );
    } else {
      localStorage.removeItem("userInfo");
    }
  }, [user]);
  return null;
}

/** The message a redirect carried (a deleted post or profile, a reset password), as a toast. */
function FlashToast({ message }: { message: string | undefined }) {
  const result = useMemo(() => (message ? { ok: true, message } : undefined), [message]);
  useToastOn(result);
  return null;
}

function PendingIndicator() {
  const navigation = useNavigation();
  if (navigation.state === "idle") return null;
  return (
    <div className="pending" role="status" aria-live="polite">
      <BlogIcon /> <span>Loading…</span>
    </div>
  );
}

export function Layout({ children }: { children: React.ReactNode }) {
  const data = useRouteLoaderData<typeof loader>("root");
  const user = useViewerData<AccountData>(data?.viewer)?.user;
  const [menuOpen, setMenuOpen] = useState(false);
  const openMenu = useCallback(() => {
    setMenuOpen(true);
  }, []);
  const closeMenu = useCallback(() => {
    setMenuOpen(false);
  }, []);
  useSwipeToOpen(openMenu);
  // The chosen theme is in the first HTML (the server read its cookie): no script, no flash.
  const theme = useShownTheme(data?.theme);

  return (
    <html lang="en" data-theme={theme === "system" ? undefined : theme}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content={theme === "system" ? "light dark" : theme} />
        <Meta />
        <Links nonce="" />
      </head>
      <body>
        <a href="#main" className="skip-link">
          Skip to content
        </a>
        {data ? (
          <>
            <Header
              site={data.site}
              viewer={data.viewer}
              categories={data.categories}
              theme={data.theme}
              onOpenMenu={openMenu}
            />
            <SideMenu
              open={menuOpen}
              onClose={closeMenu}
              user={user}
              categories={data.categories}
              links={data.site.navigation.header}
            />
          </>
        ) : null}
        <PendingIndicator />
        <ToastProvider>
          <main id="main" className="container">
            {data?.flash ? (
              <noscript>
                <p role="status" className="notice">
                  {data.flash}
                </p>
              </noscript>
            ) : null}
            {children}
          </main>
          <FlashToast message={data?.flash} />
        </ToastProvider>
        {data ? <Footer site={data.site} /> : null}
        <ScrollToTop />
        <UserInfoSync user={user} />
        <ScrollRestoration nonce={data?.nonce} />
        <Scripts nonce={data?.nonce} />
      </body>
    </html>
  );
}

export default function App() {
  return <Outlet />;
}

export function meta({ loaderData, error }: Route.MetaArgs) {
  const site = loaderData?.site.title ?? "Blog";
  if (isRouteErrorResponse(error) && error.status === 404) {
    return [{ title: `Page Not Found | ${site}` }, { name: "robots", content: "noindex" }];
  }
  if (isRouteErrorResponse(error) && error.status === 403) {
    return [{ title: `Admins only | ${site}` }, { name: "robots", content: "noindex" }];
  }
  return [{ title: error ? `Something went wrong | ${site}` : site }];
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  if (isRouteErrorResponse(error) && error.status === 404) {
    const missing: unknown = error.data;
    return <NotFound post={missing === "post"} />;
  }
  if (isRouteErrorResponse(error) && error.status === 403) {
    return (
      <section className="error-page">
        <h1>Admins only</h1>
        <p className="error-code" aria-hidden="true">
          403
        </p>
        <p>This page is for the site&apos;s admins.</p>
        <Link to="/" className="button">
          Go to home page
        </Link>
      </section>
    );
  }
  return (
    <section className="error-page">
      <h1>Something went wrong</h1>
      <p>Please try again in a moment.</p>
      <Link to="/">Go to home page</Link>
    </section>
  );
}

/** 404: where to go from here, with a search box; a post's says it may have been removed. */
export function NotFound({ post = false }: { post?: boolean }) {
  return (
    <section className="error-page">
      <h1>Page Not Found</h1>
      <p className="error-code" aria-hidden="true">
        404
      </p>
      <p>
        {post
          ? "This post may have been removed by its author or a moderator, or its address was mistyped."
          : "The address may be mistyped, or the page has moved."}{" "}
        Search for it, or browse the latest posts.
      </p>
      <Form method="get" action="/search" role="search" className="search-page-form">
        <label htmlFor="not-found-q" className="visually-hidden">
          Search text
        </label>
        <input id="not-found-q" type="search" name="q" placeholder="Search posts" maxLength={200} />
        <button type="submit" className="button">
          Search
        </button>
      </Form>
      <p>
        <Link to="/posts" className="button button-ghost">
          Latest posts
        </Link>{" "}
        <Link to="/" className="button">
          Go to home page
        </Link>
      </p>
    </section>
  );
}
