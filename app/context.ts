import type { CoreDeps } from "../core/deps.js";
import type { Actor } from "../core/users/policies.js";

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
  }
}
