import { useEffect, useRef, useState } from "react";
import { Form, Link, NavLink, useLocation } from "react-router";
import { SearchBox } from "../search/search-box.js";
import {
  BlogIcon,
  ChevronDownIcon,
  MailIcon,
  MenuIcon,
  PhoneIcon,
  SearchIcon,
} from "../../ui/icons.js";
import { NotificationBell } from "../reading/notification-bell.js";
import type { Theme } from "../../../contract/theme.js";
import { Island } from "../viewer/islands.js";
import { SiteLinks } from "./site-links.js";
import type { NavigationLink } from "../../../contract/navigation.js";
import type { ViewerPart } from "../../../contract/viewer-part.js";
import { ThemeMenu } from "../theme/theme-menu.js";
import { categoryPath, ownSeriesPath, profilePath } from "../../../contract/page-paths.js";
import { loginReturningTo, returnPath } from "../auth/return-path.js";
import type { SiteInfo, Viewer } from "../../../contract/site-host.js";

export interface Category {
  _id: string;
  title: string;
}

// Made once: building an Intl formatter costs more than rendering the rest of the header.
const dayFormat = new Intl.DateTimeFormat("en-US", {
  timeZone: "UTC",
  weekday: "long",
  year: "numeric",
  month: "long",
  day: "numeric",
});

const todayUtc = () => dayFormat.format(new Date());

/** The root's part for a signed-in viewer: who they are and their unread notifications. */
export interface AccountData {
  user: Viewer["user"];
  unread: number;
}

export function Header(props: {
  site: SiteInfo;
  /** The root's viewer part (`AccountData`). */
  viewer: ViewerPart;
  categories: Category[];
  theme: Theme;
  onOpenMenu: () => void;
}) {
  const { site, categories } = props;
  const userMenu = useRef<HTMLDetailsElement>(null);
  const { key, pathname, search } = useLocation();
  // Sent home from a signed-in page, the header's Login comes back to it too (issue 50).
  const from = pathname === "/" ? returnPath(new URLSearchParams(search).get("from")) : undefined;
  const loginTo = from ? loginReturningTo(from) : "/login";
  const shownKey = useRef(key);
  // A dropdown closes once you have gone where it took you; not on hydration, when a reader on a
  // slow device may already have opened it.
  useEffect(() => {
    if (shownKey.current === key) return;
    shownKey.current = key;
    if (userMenu.current) userMenu.current.open = false;
  }, [key]);
  // On a phone the search box is a button's until asked for: one compact bar (issue 50).
  const [searchOpen, setSearchOpen] = useState(false);
  const navbar = useRef<HTMLDivElement>(null);
  useEffect(() => {
    setSearchOpen(false);
  }, [key]);
  return (
    <>
      {/* Above the header, scrolled away with the page: only the header's bar stays in view. */}
      <div className="topbar">
        <div className="container topbar-inner">
          <span suppressHydrationWarning>{todayUtc()}</span>
          <span className="topbar-contact">
            <a href={`tel:${site.contactPhone.replace(/[^+\d]/g, "")}`}>
              <PhoneIcon /> {site.contactPhone}
            </a>
            <a href={`mailto:${site.contactEmail}`}>
              <MailIcon /> {site.contactEmail}
            </a>
          </span>
        </div>
      </div>
      <header className="site-header">
        <div
          className={searchOpen ? "container navbar search-open" : "container navbar"}
          ref={navbar}
        >
          {/* A link to the menu page, so the menu works without JavaScript; with it, the panel. */}
          <Link
            to="/menu"
            role="button"
            className="icon-button menu-button"
            aria-label="Open menu"
            onClick={(event) => {
              event.preventDefault();
              props.onOpenMenu();
            }}
            onKeyDown={(event) => {
              if (event.key !== " ") return;
              event.preventDefault();
              props.onOpenMenu();
            }}
          >
            <MenuIcon />
          </Link>
          <Link to="/" className="brand">
            {site.logo ? (
              <img
                src={site.logo.url}
                alt=""
                className="brand-logo"
                height={32}
                // Sized before it loads (Lighthouse's unsized image): its width at 32 px high.
                width={
                  site.logo.width && site.logo.height
                    ? Math.max(1, Math.round((32 * site.logo.width) / site.logo.height))
                    : undefined
                }
              />
            ) : (
              <BlogIcon />
            )}{" "}
            <span className="brand-title">{site.title}</span>
          </Link>
          <nav aria-label="Main" className="main-nav">
            <ul>
              <li>
                <NavLink to="/" end>
                  Home
                </NavLink>
              </li>
              <li className="dropdown">
                <button type="button" className="dropdown-toggle" aria-haspopup="true">
                  Categories <ChevronDownIcon />
                </button>
                <CategoryLinks categories={categories} className="dropdown-menu" />
              </li>
              <li>
                <NavLink to="/posts" end>
                  Posts
                </NavLink>
              </li>
              <SiteLinks links={site.navigation.header} marksCurrent />
              <Island<AccountData> route="root" part={props.viewer}>
                {(account) =>
                  account?.user.isAdmin ? (
                    <>
                      <li>
                        <NavLink to="/posts/create-post">Create</NavLink>
                      </li>
                      <li>
                        <NavLink to="/admin-dashboard">Admin Dashboard</NavLink>
                      </li>
                    </>
                  ) : account ? (
                    // Every member writes (SPEC.md 1): SPEC's Create link stays the admin's, so
                    // members get their own, where they look for it (issue 33).
                    <li>
                      <NavLink to="/posts/create-post">Write</NavLink>
                    </li>
                  ) : null
                }
              </Island>
            </ul>
          </nav>
          <SearchBox />
          {/* Without JavaScript, the search page; with it, the box opens under the bar. */}
          <Link
            to="/search"
            role="button"
            className="icon-button search-button"
            aria-label="Search"
            aria-expanded={searchOpen}
            onClick={(event) => {
              event.preventDefault();
              setSearchOpen(!searchOpen);
              if (!searchOpen) {
                requestAnimationFrame(() => {
                  navbar.current?.querySelector<HTMLInputElement>(".site-search input")?.focus();
                });
              }
            }}
          >
            <SearchIcon />
          </Link>
          <div className="account">
            <Island<AccountData> route="root" part={props.viewer}>
              {(account) => (account ? <NotificationBell unread={account.unread} /> : null)}
            </Island>
            <ThemeMenu theme={props.theme} />
            <Island<AccountData> route="root" part={props.viewer}>
              {(account) => {
                if (!account) {
                  return (
                    <>
                      <Link to={loginTo} className="button button-ghost">
                        Login
                      </Link>
                      <Link to="/register" className="button">
                        Register
                      </Link>
                    </>
                  );
                }
                const { user } = account;
                return (
                  <details className="user-menu" ref={userMenu}>
                    <summary>
                      {/* Lazy, so React does not hoist a preload of it into the head, which a
                        member page made from a shell would not have (decision 021). */}
                      <img
                        src={user.profilePhoto.url}
                        alt=""
                        width="32"
                        height="32"
                        className="avatar"
                        loading="lazy"
                      />
                      <span className="user-menu-name">{user.username}</span>
                    </summary>
                    <ul className="dropdown-menu dropdown-menu-end">
                      <li>
                        <Link to={profilePath(user._id)}>Profile</Link>
                      </li>
                      <li>
                        <Link to="/settings">Settings</Link>
                      </li>
                      {/* Every member writes (SPEC.md 1); the nav's Create link stays the admin's. */}
                      <li>
                        <Link to="/posts/create-post">Write a post</Link>
                      </li>
                      <li>
                        <Link to="/reading-list">Reading list</Link>
                      </li>
                      <li>
                        <Link to="/stats">Stats</Link>
                      </li>
                      <li>
                        <Link to={ownSeriesPath}>Series</Link>
                      </li>
                      <li>
                        <Form method="post" action="/logout">
                          <button type="submit" className="link-button">
                            Logout
                          </button>
                        </Form>
                      </li>
                    </ul>
                  </details>
                );
              }}
            </Island>
          </div>
        </div>
      </header>
    </>
  );
}

/**
 * The entries of SPEC.md 2's side menu: in the sliding panel, and on the menu page that the menu
 * button leads to without JavaScript. Kept here, with the header every page loads, so the menu
 * costs no request of its own.
 */
export function MenuLinks(props: {
  user: Viewer["user"] | undefined;
  categories: Category[];
  /** The admin's header links (decision 032). */
  links: readonly NavigationLink[];
  /** The menu page shows the categories at once; the panel keeps them folded. */
  categoriesOpen?: boolean;
  onLogOut?: () => void;
}) {
  const { user, categories } = props;
  return (
    <ul>
      <li>
        <Link to="/">Home</Link>
      </li>
      <li>
        <details open={props.categoriesOpen}>
          <summary>Categories</summary>
          <CategoryLinks categories={categories} />
        </details>
      </li>
      <li>
        <Link to="/posts">Posts</Link>
      </li>
      <SiteLinks links={props.links} />
      {user?.isAdmin ? (
        <>
          <li>
            <Link to="/posts/create-post">Create Post</Link>
          </li>
          <li>
            <Link to="/admin-dashboard">Dashboard</Link>
          </li>
        </>
      ) : user ? (
        <li>
          <Link to="/posts/create-post">Write</Link>
        </li>
      ) : null}
      {user ? (
        <>
          <li>
            <Link to={profilePath(user._id)}>Profile</Link>
          </li>
          <li>
            <Link to="/reading-list">Reading list</Link>
          </li>
          <li>
            <Link to="/notifications">Notifications</Link>
          </li>
          <li>
            <Link to="/stats">Stats</Link>
          </li>
          <li>
            <Link to={ownSeriesPath}>Series</Link>
          </li>
          <li>
            <Link to="/settings">Settings</Link>
          </li>
          <li>
            <Form method="post" action="/logout" onSubmit={props.onLogOut}>
              <button type="submit" className="link-button">
                Log Out
              </button>
            </Form>
          </li>
        </>
      ) : null}
    </ul>
  );
}

/** Every category as a link, in the menu and in the bar's dropdown alike. */
function CategoryLinks(props: {
  categories: readonly { _id: string; title: string }[];
  className?: string;
}) {
  return (
    <ul className={props.className}>
      {props.categories.length === 0 ? <li className="muted">No categories yet</li> : null}
      {props.categories.map((category) => (
        <li key={category._id}>
          <Link to={categoryPath(category.title)}>{category.title}</Link>
        </li>
      ))}
    </ul>
  );
}
