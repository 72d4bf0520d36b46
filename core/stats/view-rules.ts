/**
 * Which requests are a reader's view of a post (DESIGN.md 10, "Writers' stats"; decision 026),
 * decided from the request alone, before anything is counted.
 */

type Headers = Record<string, string | string[] | undefined>;

const header = (headers: Headers, name: string) => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/** A browser's user agent: Mozilla/5.0 and a browser engine. */
const BROWSER = /^Mozilla\/5\.0 .*(?:AppleWebKit|Gecko|Trident)\//;
/**
 * Agents that say "Mozilla" and are not a person reading: crawlers, link previews, tools,
 * automation. (Apps' in-app browsers are readers: their previewers name themselves bots.)
 */
const NOT_A_READER =
  /\bbot\b|bot\/|bot;|crawl|spider|slurp|archiver|headless|lighthouse|pagespeed|gtmetrix|inspectiontool|preview|facebookexternalhit|embedly|phantomjs|selenium|puppeteer|playwright|uptime|monitor|\+https?:/i;

/** Agents already judged: a site sees a few hundred, and the patterns cost microseconds each. */
const judged = new Map<string, boolean>();
const JUDGED_MAX = 2000;

/** Whether a user agent is a browser a person reads with (a bot, a tool or no agent is not). */
export function isReaderAgent(userAgent: string | undefined): boolean {
  if (!userAgent || userAgent.length > 512) return false;
  let reader = judged.get(userAgent);
  if (reader === undefined) {
    reader = BROWSER.test(userAgent) && !NOT_A_READER.test(userAgent);
    if (judged.size >= JUDGED_MAX) judged.clear();
    judged.set(userAgent, reader);
  }
  return reader;
}

/** Where browsers say a request is speculative (the standard header, and older ones). */
const PURPOSE_HEADERS = ["sec-purpose", "purpose", "x-purpose", "x-moz"] as const;

/** Whether a request is a prefetch or a prerender the reader may never look at. */
export function isPrefetch(headers: Headers): boolean {
  return PURPOSE_HEADERS.some((name) => {
    const purpose = header(headers, name);
    return purpose !== undefined && /prefetch|preview|prerender/i.test(purpose);
  });
}

/**
 * The post a page address shows, when it is a post page (the router serves it with a trailing
 * slash too) or its client navigation data.
 */
export function postOfPath(pathname: string): string | undefined {
  return /^\/posts\/details\/([A-Za-z0-9_-]{1,64})(?:\.data|\/)?$/.exec(pathname)?.[1];
}

/**
 * What the Referer says about a view of `postId`: the host of another site it came from, `same`
 * when it is this very post page asking again (a reload of its data after a like or a comment,
 * not a new view), or nothing (no referrer, one of the site's own pages, not a web address).
 */
export function refererOf(
  referer: string | undefined,
  siteHost: string,
  postId: string,
): { host: string } | "same" | undefined {
  if (!referer || referer.length > 2048) return undefined;
  let url: URL;
  try {
    url = new URL(referer);
  } catch {
    return undefined;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  const host = url.hostname.toLowerCase();
  if (host === siteHost) return postOfPath(url.pathname) === postId ? "same" : undefined;
  if (host.length === 0 || host.length > 253) return undefined;
  return { host };
}

/**
 * A reader's view of a post, or undefined when the request is none: not a GET, a bot or a tool, a
 * prefetch, not a post page, or the same page asking again.
 */
export function viewOf(
  request: { method: string; headers: Headers; url: string },
  siteHost: string,
): { postId: string; referrerHost: string | undefined } | undefined {
  if (request.method !== "GET") return undefined;
  const url = request.url;
  const query = url.indexOf("?");
  const pathname = query === -1 ? url : url.slice(0, query);
  const postId = postOfPath(pathname);
  if (postId === undefined) return undefined;
  if (!isReaderAgent(header(request.headers, "user-agent"))) return undefined;
  if (isPrefetch(request.headers)) return undefined;
  const referer = refererOf(header(request.headers, "referer"), siteHost, postId);
  if (referer === "same") return undefined;
  return { postId, referrerHost: referer?.host };
}
