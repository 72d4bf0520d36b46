/**
 * Where to go after signing in (the login page's `next`) or after a form (a `returnTo`): a path on
 * this site only (not `//host` or `/\host`, which browsers read as another site), or nothing.
 */
export function returnPath(value: string | null | undefined): string | undefined {
  if (!value || !value.startsWith("/") || value.startsWith("//")) return undefined;
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  if (/[\\\u0000-\u001f\u007f]/.test(value)) return undefined;
  // It becomes a Location header, which carries bytes: past ASCII, as UTF-8 percent-encoded (as a
  // browser writes a path); text that is not Unicode at all (a lone surrogate) is no path of ours.
  try {
    return value.replace(/[^\x21-\x7e]+/g, (run) => encodeURIComponent(run));
  } catch {
    return undefined;
  }
}

/** The login page, coming back to `path` once signed in. */
export const loginReturningTo = (path: string) =>
  `/login?${new URLSearchParams({ next: path }).toString()}`;

/**
 * Why a visitor was sent home from a signed-in page (`from`), and the way back: the home page
 * says it above the posts (issue 50). Pages not named here get the general words.
 */
const SIGN_IN_REASONS: readonly { path: RegExp; reason: string; back: string }[] = [
  {
    path: /^\/profile\//,
    reason: "Log in to see author profiles.",
    back: "Log in and go back to the profile",
  },
  { path: /^\/stats(?:\/|$)/, reason: "Log in to see your stats.", back: "Log in to see them" },
  { path: /^\/series$/, reason: "Log in to see your series.", back: "Log in to see them" },
  {
    path: /^\/settings\/security$/,
    reason: "Log in to see your account's security.",
    back: "Log in to see it",
  },
  {
    path: /^\/settings$/,
    reason: "Log in to change your settings.",
    back: "Log in to see them",
  },
  {
    path: /^\/notifications$/,
    reason: "Log in to see your notifications.",
    back: "Log in to see them",
  },
  {
    path: /^\/reading-list$/,
    reason: "Log in to see your reading list.",
    back: "Log in to see it",
  },
  {
    path: /^\/newsletter\/subscribers/,
    reason: "Log in to see your subscribers.",
    back: "Log in to see them",
  },
];

/** What home tells a visitor sent there from `from` (a path `returnPath` accepted). */
export function signInReason(from: string) {
  const path = from.split(/[?#]/, 1)[0] ?? from;
  const known = SIGN_IN_REASONS.find((entry) => entry.path.test(path));
  return {
    reason: known?.reason ?? "Log in to see that page.",
    back: known?.back ?? "Log in and go back to it",
    login: loginReturningTo(from),
  };
}
