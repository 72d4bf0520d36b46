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
