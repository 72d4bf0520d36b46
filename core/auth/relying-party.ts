import { isIP } from "node:net";

/**
 * The IP address a site is served at, read from its public address; undefined when the site has
 * a domain name. WebAuthn takes only a domain name as its relying party (localhost counts as
 * one), so passkeys cannot work on a site served at an address (decision 031).
 */
export function servedAtAddress(publicUrl: string): string | undefined {
  const host = new URL(publicUrl).hostname;
  // An IPv6 host keeps its brackets in a URL.
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  return isIP(bare) === 0 ? undefined : bare;
}
