import { THEME_COOKIE, type Theme } from "../../../contract/theme.js";

/** A year: a choice of theme is kept until the reader changes it. */
const KEPT_SECONDS = 365 * 24 * 60 * 60;

/**
 * The cookie that remembers `theme`: set for light or dark, cleared for the system's (the
 * default, which then keeps the reader on the shared render every other reader gets).
 */
export function themeCookie(theme: Theme, secure: boolean) {
  const keep = theme === "system" ? "; Max-Age=0" : `; Max-Age=${String(KEPT_SECONDS)}`;
  const value = theme === "system" ? "" : theme;
  return `${THEME_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Lax${keep}${secure ? "; Secure" : ""}`;
}
