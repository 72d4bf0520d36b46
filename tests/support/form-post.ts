/** Where a test server listens, and the address it serves its pages as. */
interface Site {
  url: string;
  config: { publicUrl: string };
}

/**
 * A form post as the site's own pages send it: from the site's origin, urlencoded, redirects left
 * to the test. `headers` come last, so a test can add a cookie or post from somewhere else.
 */
export function postForm(
  site: Site,
  path: string,
  body: string,
  headers: Record<string, string> = {},
) {
  return fetch(`${site.url}${path}`, {
    method: "POST",
    redirect: "manual",
    headers: {
      origin: site.config.publicUrl,
      "content-type": "application/x-www-form-urlencoded",
      ...headers,
    },
    body,
  });
}
