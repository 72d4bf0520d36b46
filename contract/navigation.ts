// The site's navigation (DESIGN.md 11, "Pages and series"; decision 032): the links an admin puts
// in the header and the footer, without zod (the header and footer are on every page).

/** One link: the words shown, and a path on this site or an absolute http(s) address. */
export interface NavigationLink {
  label: string;
  url: string;
}

export interface SiteNavigation {
  header: NavigationLink[];
  footer: NavigationLink[];
}

export const NAVIGATION_PLACES = ["header", "footer"] as const;
export type NavigationPlace = (typeof NAVIGATION_PLACES)[number];

/** At most this many links in each place. */
export const NAVIGATION_LINKS_MAX = 8;
export const NAVIGATION_LABEL_MAX = 40;
export const NAVIGATION_URL_MAX = 2000;

/**
 * What a site shows until an admin saves its navigation: the footer's links of before (the header
 * keeps SPEC's own menu and adds nothing). "Contact" (the contact address) and the social links
 * are not navigation: the footer always shows them after these.
 */
export const DEFAULT_NAVIGATION: SiteNavigation = {
  header: [],
  footer: [
    { label: "Home", url: "/" },
    { label: "Posts", url: "/posts" },
    { label: "RSS", url: "/rss.xml" },
  ],
};

export const navigationMessages = {
  invalid: "Navigation must be an object with header and footer lists of links",
  tooMany: `Each of header and footer can have at most ${String(NAVIGATION_LINKS_MAX)} links`,
  labelRequired: "Label is required",
  labelTooLong: `Label must be at most ${String(NAVIGATION_LABEL_MAX)} characters`,
  urlRequired: "Address is required",
  urlInvalid:
    "Address must be a path on this site (starting with /) or an http:// or https:// address",
} as const;

/**
 * A path on this site: starts with one slash (two would be another host), no backslash (browsers
 * read it as a slash), no spaces or control characters (browsers drop some of them).
 */
// eslint-disable-next-line no-control-regex
const SITE_PATH = /^\/(?![/\\])[^\s\\\x00-\x1f\x7f]*$/;

/** Whether a link's address is one the navigation may hold. */
export function isNavigationUrl(url: string) {
  if (url.length > NAVIGATION_URL_MAX) return false;
  if (SITE_PATH.test(url)) {
    // Dot segments must not make it another host's address: "/..//evil.example" is "//evil...".
    try {
      return !new URL(url, "http://site.invalid").pathname.startsWith("//");
    } catch {
      return false;
    }
  }
  if (!/^https?:\/\//i.test(url)) return false;
  try {
    return new URL(url).hostname !== "";
  } catch {
    return false;
  }
}

/** Whether a link leaves the site (shown as a plain link, not the client router's). */
export const isExternalUrl = (url: string) => /^https?:\/\//i.test(url);
