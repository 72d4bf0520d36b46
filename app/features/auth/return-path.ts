/**
 * Where to go after signing in, as the login page's `next` parameter: a path on this site only
 * (not `//host` or `/\host`, which browsers read as another site), or nothing.
 */
export function returnPath(value: string | null | undefined): string | undefined {
  if (!value || !value.startsWith("/") || value.startsWith("//")) return undefined;
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  if (/[\\\u0000-\u001f\u007f]/.test(value)) return undefined;
  return value;
}

/** The login page, coming back to `path` once signed in. */
export const loginReturningTo = (path: string) =>
  `/login?${new URLSearchParams({ next: path }).toString()}`;
