import type { ReactNode } from "react";
import type { CoreDeps } from "../core/deps.js";
import type { Actor } from "../core/users/policies.js";
import type { PublicSiteSettings } from "./site-settings.js";
import type { Theme } from "./theme.js";

// What the HTTP host (server/) and the web site (app/) hand each other: the site's public facts,
// the signed-in viewer, a shell's recorded islands and the rate limits page actions spend.

/** The rate limits the API applies, which page actions apply too (server/api/rate-limits.ts holds their numbers). */
export type LimitName =
  | "login"
  | "register"
  | "resetLink"
  | "upload"
  | "bodyImage"
  | "comment"
  | "like"
  | "postEdit"
  | "autosave"
  | "preview"
  | "profile"
  | "report"
  | "follow"
  | "bookmark"
  | "settings"
  | "search"
  | "unsubscribe"
  | "subscribe"
  | "subscriberImport"
  | "testMail"
  | "security"
  | "integrations";

/**
 * Public facts about the site (the explicit list that reaches pages): the settings admins save
 * (SITE_* until then, decision 020) and the configured address.
 */
export interface SiteInfo {
  title: string;
  contactPhone: string;
  contactEmail: string;
  welcome: string;
  /** The logo, or null for the default mark. */
  logo: PublicSiteSettings["logo"];
  /** The footer's social links, only the networks that have one. */
  socialLinks: PublicSiteSettings["socialLinks"];
  /** The header's and footer's links as the admin set them (decision 032). */
  navigation: PublicSiteSettings["navigation"];
  publicUrl: string;
}

/** The signed-in person, as the page layer knows them. */
export interface Viewer {
  actor: Actor;
  sessionId: string;
  /** When this session signed in (ISO time). */
  signedInAt: string;
  /** Whether this session proved a second factor (a token made in it inherits that). */
  secondFactor: boolean;
  user: { _id: string; username: string; profilePhoto: { url: string }; isAdmin: boolean };
}

/** An island recorded by a shell render: where it goes, and how to render it for a viewer. */
export interface RecordedIsland {
  /** The text standing in its place in the shell's HTML. */
  marker: string;
  /** The route whose part it reads (a live part's name for a live island, decision 029). */
  route: string;
  /**
   * Whether it is a live island (decision 029): it reads its live part and, inside it, the
   * viewer's parts, nothing else, so its HTML is kept for what those texts are.
   */
  live: boolean;
  /** The island for a viewer's part of its route (the contexts it sat in included). */
  render(viewerData: unknown): ReactNode;
}

/** A live part's read (decision 029), and what moves it on. */
export interface LivePartRead {
  read: () => Promise<unknown>;
  /**
   * "comments": it shows the post's comments alone, and is read again only when they change (a
   * like leaves it as it is); "post": any change of the post's likes or comments.
   */
  keptBy: "post" | "comments";
}

/**
 * What a shell render notes as it goes (decision 021): a page rendered once for every signed-in
 * member, with markers where each viewer's parts go, filled in per request by the host.
 */
export interface ShellRecorder {
  /**
   * Whether the shell is every member's (decision 021); false: every visitor's, whose islands
   * are its live ones alone (decision 029).
   */
  forMembers: boolean;
  /** The marker of `name` in this shell: text no content can hold (it carries a secret). */
  marker(name: string): string;
  /** Each route's reads for a viewer, by route id (`viewerPart`). */
  parts: Map<string, (viewer: Viewer) => Promise<unknown>>;
  /**
   * The reads of what a write of the page's post's likes or comments changes (`livePart`,
   * decision 029), the same for every reader, by name.
   */
  liveParts: Map<string, LivePartRead>;
  islands: RecordedIsland[];
}

/** What every loader and action of the web site is given by the host (server/web/site.ts). */
declare module "react-router" {
  interface AppLoadContext {
    deps: CoreDeps;
    site: SiteInfo;
    viewer: Viewer | undefined;
    /**
     * Set when this render is a shell for every member (or, `forMembers` false, for every
     * visitor), and `viewer` is then undefined.
     */
    shell?: ShellRecorder;
    /** Whether cookies get the Secure flag (the site is served over HTTPS). */
    secureCookies: boolean;
    /** This response's Content-Security-Policy nonce for React Router's inline scripts. */
    cspNonce: string;
    /** The reader's theme from their cookie; a shared render is kept per theme (decision 014). */
    theme: Theme;
    /** Counts one attempt against a named rate limit; the refusal message once it is exceeded. */
    limit(name: LimitName): Promise<string | undefined>;
    /**
     * Runs work that waits on something other than the page, an upload's image work (which has a
     * line of its own), with this request's render slot given back meanwhile: pages do not wait
     * behind uploads.
     */
    outsideSlot<T>(work: () => Promise<T>): Promise<T>;
  }
}
