import { FLASH_COOKIE, readCookie } from "../../contract/cookies.js";

/** The flash message (contract/cookies.ts): set on a redirect, shown and cleared by the next page. */
export const flashCookie = (message: string) =>
  `${FLASH_COOKIE}=${encodeURIComponent(message.slice(0, 200))}; Path=/; Max-Age=60; HttpOnly; SameSite=Lax`;

export const clearedFlashCookie = `${FLASH_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax`;

export const readFlash = (request: Request) =>
  readCookie(request.headers.get("cookie"), FLASH_COOKIE);
