import { SESSION_TTL_MS } from "../../../core/auth/sessions.js";
import { readCookie, sessionCookieName } from "../../../contract/cookies.js";

export function sessionCookie(token: string, secure: boolean) {
  const maxAge = String(Math.floor(SESSION_TTL_MS / 1000));
  return `${sessionCookieName(secure)}=${token}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${secure ? "; Secure" : ""}`;
}

export function clearedSessionCookie(secure: boolean) {
  return `${sessionCookieName(secure)}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${secure ? "; Secure" : ""}`;
}

/**
 * The signup proof's cookie (core/auth/signup-proof.ts), kept a day, as long as the mailed link
 * works; bound to this exact host over HTTPS, as the session's is, so no sibling can plant one.
 */
export const signupCookieName = (secure: boolean) => (secure ? "__Host-signup" : "signup");

export const signupCookie = (proof: string, secure: boolean) =>
  `${signupCookieName(secure)}=${encodeURIComponent(proof)}; Path=/; HttpOnly; SameSite=Lax; Max-Age=86400${secure ? "; Secure" : ""}`;

export const clearedSignupCookie = (secure: boolean) =>
  `${signupCookieName(secure)}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${secure ? "; Secure" : ""}`;

/**
 * A route's `headers`: the cookies its loader or action set (a sign-in by a verification link,
 * the signup proof), with the root's headers. Each cookie is appended: several may be set at once.
 */
export function withSetCookies(args: {
  loaderHeaders: Headers;
  actionHeaders: Headers;
  parentHeaders: Headers;
}) {
  const merged = new Headers(args.parentHeaders);
  for (const own of [args.loaderHeaders, args.actionHeaders]) {
    for (const cookie of own.getSetCookie()) merged.append("Set-Cookie", cookie);
  }
  return merged;
}

/**
 * A sign-in waiting for its second factor (decision 024): the account's id and the pending token,
 * kept as long as it (SIGN_IN_STEP_TTL_MS), bound to this exact host over HTTPS like the session's.
 */
export const signInStepCookieName = (secure: boolean) => (secure ? "__Host-signin" : "signin");

export const signInStepCookie = (pending: { userId: string; token: string }, secure: boolean) =>
  `${signInStepCookieName(secure)}=${encodeURIComponent(`${pending.userId}.${pending.token}`)}; Path=/; HttpOnly; SameSite=Lax; Max-Age=600${secure ? "; Secure" : ""}`;

export const clearedSignInStepCookie = (secure: boolean) =>
  `${signInStepCookieName(secure)}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${secure ? "; Secure" : ""}`;

/** The pending sign-in a request's cookie names, if any. */
export function readSignInStep(cookieHeader: string | null, secure: boolean) {
  const value = readCookie(cookieHeader, signInStepCookieName(secure));
  const [userId, token] = value?.split(".") ?? [];
  return userId && token ? { userId, token } : undefined;
}
