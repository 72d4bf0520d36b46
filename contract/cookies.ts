// Cookies the HTTP host reads before the web site runs (the session, the theme, the flash
// message), named and read the same way on both sides.

/**
 * The web site keeps the session token in this httpOnly cookie; scripts never see it. Over HTTPS
 * the `__Host-` prefix binds it to this exact host, so a sibling subdomain cannot plant or shadow it.
 */
export const sessionCookieName = (secure: boolean) => (secure ? "__Host-session" : "session");

/** A cookie's value, or undefined when it is absent or not decodable (treated as signed out). */
export function readCookie(header: string | null | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const index = part.indexOf("=");
    if (index > 0 && part.slice(0, index).trim() === name) {
      try {
        return decodeURIComponent(part.slice(index + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/**
 * A message that survives one redirect (SPEC.md 8 shows the server's message after deleting a post
 * or a profile and after a password reset): set on the redirect, shown and cleared by the next page.
 */
export const FLASH_COOKIE = "flash";
