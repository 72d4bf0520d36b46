import { readCookie } from "./auth/session-cookie.server.js";

/**
 * A message that survives one redirect (SPEC.md 8 shows the server's message after deleting a post
 * or a profile and after a password reset): set on the redirect, shown and cleared by the next page.
 */
export const FLASH_COOKIE = "flash";

export const flashCookie = (message: string) =>
  `${FLASH_COOKIE}=${encodeURIComponent(message.slice(0, 200))}; Path=/; Max-Age=60; HttpOnly; SameSite=Lax`;

export const clearedFlashCookie = `${FLASH_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax`;

export const readFlash = (request: Request) =>
  readCookie(request.headers.get("cookie"), FLASH_COOKIE);
