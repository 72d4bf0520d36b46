import type { CoreDeps } from "../core/deps.js";
import type { Actor } from "../core/users/policies.js";

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
  | "bookmark";

/** Public facts about the site, from configuration (the explicit list that reaches pages). */
export interface SiteInfo {
  title: string;
  contactPhone: string;
  contactEmail: string;
  welcome: string;
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
    /** Counts one attempt against a named rate limit; the refusal message once it is exceeded. */
    limit(name: LimitName): Promise<string | undefined>;
  }
}
