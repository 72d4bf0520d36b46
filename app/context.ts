import type { CoreDeps } from "../core/deps.js";
import type { Actor } from "../core/users/policies.js";
import type { Theme } from "./features/theme/theme.js";

/** The rate limits the API applies, which page actions apply too (server/api/rate-limits.ts). */
export type LimitName =
  | "login"
  | "register"
  | "resetLink"
  | "upload"
  | "bodyImage"
  | "comment"
  | "like"
  | "postEdit"
  | "preview"
  | "profile"
  | "report"
  | "follow"
  | "bookmark"
  | "settings"
  | "search"
  | "unsubscribe";

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
  logo: { url: string } | null;
  publicUrl: string;
}

/** The signed-in person, as the page layer knows them. */
export interface Viewer {
  actor: Actor;
  sessionId: string;
  /** When this session signed in (ISO time). */
  signedInAt: string;
  user: { _id: string; username: string; profilePhoto: { url: string }; isAdmin: boolean };
}

declare module "react-router" {
  interface AppLoadContext {
    deps: CoreDeps;
    site: SiteInfo;
    viewer: Viewer | undefined;
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
    outsideRenderSlot<T>(work: () => Promise<T>): Promise<T>;
  }
}
