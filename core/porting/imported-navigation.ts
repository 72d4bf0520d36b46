import {
  DEFAULT_NAVIGATION,
  isNavigationUrl,
  NAVIGATION_LABEL_MAX,
  NAVIGATION_LINKS_MAX,
  navigationMessages,
  type NavigationLink,
  type NavigationPlace,
} from "../../contract/navigation.js";
import { pagePath, postPath, tagPath } from "../../contract/page-paths.js";
import type { CoreDeps } from "../deps.js";
import {
  saveNavigationIfUnset,
  type SiteSettingsDefaults,
} from "../site-settings/site-settings-service.js";
import type { BlogImportReport } from "./blog-import.js";
import type { ForeignBlog, ForeignLink } from "./foreign.js";
import { tagFrom } from "./imported-bodies.js";

// The source's navigation becomes the site's (decision 032), only while the site has none saved:
// an import never changes what an admin chose. Links to the old site lead to what was imported.

/** What became of the source's navigation: saved (with its links' counts), or not and why. */
export type NavigationOutcome =
  { saved: true; header: number; footer: number } | { saved: false; why: string };

/** Where the old site's posts and pages are here, and what the site shows until it is set up. */
export interface NavigationTargets {
  /** A page's slug on the old site → its slug here. */
  pages: ReadonlyMap<string, string>;
  /** A post's slug on the old site → its id here, when it is here. */
  posts: (slug: string) => string | undefined;
  defaults: SiteSettingsDefaults;
}

/** Ghost writes its own address as this in exports. */
const GHOST_URL = "__GHOST_URL__";

const ALREADY_SAVED = "this site's navigation was saved already; an import never changes it";

export async function importNavigation(
  deps: CoreDeps,
  blog: ForeignBlog,
  report: BlogImportReport,
  targets: NavigationTargets,
): Promise<NavigationOutcome> {
  const saved = await deps.db
    .selectFrom("site_settings")
    .select("navigation")
    .where("navigation", "is not", null)
    .executeTakeFirst();
  if (saved) return { saved: false, why: ALREADY_SAVED };
  const oldSite = blog.siteUrl?.replace(/\/+$/, "");
  const place = (name: NavigationPlace) =>
    fittedLinks(name, blog.navigation?.[name], (url) => localUrl(url, oldSite, targets), report);
  const navigation = { header: place("header"), footer: place("footer") };
  if (!(await saveNavigationIfUnset(deps, navigation, targets.defaults)))
    return { saved: false, why: ALREADY_SAVED };
  return { saved: true, header: navigation.header.length, footer: navigation.footer.length };
}

/**
 * A place's links as the navigation rules take them: a label of 1 to 40 characters, an address on
 * this site or an http(s) one, at most 8; each other link is reported with why. A place the source
 * does not have keeps what the site shows today.
 */
function fittedLinks(
  place: NavigationPlace,
  links: readonly ForeignLink[] | undefined,
  addressOf: (url: string) => { url: string } | { why: string },
  report: BlogImportReport,
): NavigationLink[] {
  if (links === undefined) return DEFAULT_NAVIGATION[place];
  const kept: NavigationLink[] = [];
  for (const link of links) {
    const label = link.label.trim().replace(/\s+/g, " ");
    const leftOut = (reason: string) =>
      report.skipped.push({ item: `${place} link "${label}" (${link.url})`, reason });
    const address = addressOf(link.url.trim());
    if (label === "") leftOut(navigationMessages.labelRequired);
    else if (label.length > NAVIGATION_LABEL_MAX) leftOut(navigationMessages.labelTooLong);
    else if ("why" in address) leftOut(address.why);
    else if (!isNavigationUrl(address.url)) leftOut(navigationMessages.urlInvalid);
    else if (kept.length >= NAVIGATION_LINKS_MAX)
      leftOut(`the ${place} has at most ${String(NAVIGATION_LINKS_MAX)} links here`);
    else kept.push({ label, url: address.url });
  }
  return kept;
}

/**
 * A link's address here: one to the old site (Ghost's placeholder, a path, or the old site's
 * address) becomes the path of what it showed where this site has it (its home, a tag, its feed,
 * an imported page or post); any other stays as it is (the rules then judge it).
 */
function localUrl(
  url: string,
  oldSite: string | undefined,
  targets: NavigationTargets,
): { url: string } | { why: string } {
  if (/#\/portal\b/.test(url))
    return { why: "Ghost's Portal (members' sign-up and account) has no equivalent here" };
  const own = url.startsWith(GHOST_URL)
    ? url.slice(GHOST_URL.length)
    : oldSite && (url === oldSite || /^[/?#]/.test(url.slice(oldSite.length, oldSite.length + 1)))
      ? url.slice(oldSite.length)
      : /^\/(?![/\\])/.test(url)
        ? url
        : undefined;
  if (own === undefined) return { url };
  const [, path = "", rest = ""] = /^([^?#]*)(.*)$/.exec(own) ?? [];
  const segments = path
    .split("/")
    .filter(Boolean)
    .map((segment) => {
      try {
        return decodeURIComponent(segment);
      } catch {
        return segment;
      }
    });
  const [first, second] = segments;
  let local: string | undefined;
  if (first === undefined) local = "/";
  else if (segments.length === 2 && first === "tag" && second !== undefined) {
    const tag = tagFrom(second);
    local = tag === undefined ? undefined : tagPath(tag);
  } else if (segments.length === 1 && first === "rss") local = "/rss.xml";
  else if (segments.length === 1) {
    const page = targets.pages.get(first);
    const post = page === undefined ? targets.posts(first) : undefined;
    local = page !== undefined ? pagePath(page) : post !== undefined ? postPath(post) : undefined;
  }
  if (local !== undefined) return { url: `${local}${rest}` };
  // An old site's address this site has no equivalent of: kept where it is a whole address.
  if (/^https?:\/\//i.test(url)) return { url };
  return {
    why: "a path of the old site that this site does not have (and no address of the old site to lead to)",
  };
}
