import { randomBytes } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { ShellRecorder, Viewer } from "../../contract/site-host.js";
import type { Theme } from "../../contract/theme.js";
import { postOfPage, versionsOfPage, type PageVersions } from "./content-version.js";
import { LiveIslands, LiveTexts, readLiveParts } from "./live-parts.js";
import {
  composeMemberPage,
  cutShell,
  memberPageIsWholeFor,
  MemberShells,
  readParts,
  shellRecorder,
  type RenderIslands,
} from "./member-pages.js";
import {
  etagOf,
  inlineScriptHashes,
  isSearchAddress,
  PageCache,
  preferredEncoding,
  type CachedPage,
} from "./page-cache.js";
import {
  firstDifference,
  pageCsp,
  themeOfRequest,
  viewerOf,
  type PageHost,
} from "./page-requests.js";
import { noteViewer } from "./view-counting.js";

/** Member pages' shells kept at once, with the data their islands close over. */
const MEMBER_SHELLS_BYTES = 32 * 1024 * 1024;
/** Members' pages kept, each with its compressed forms (~30 KB a page), by what made them. */
const MEMBER_PAGES_BYTES = 32 * 1024 * 1024;
/** Visitors' shells of the pages with live parts (post pages, decision 029). */
const VISITOR_SHELLS_BYTES = 16 * 1024 * 1024;
/** Searches' shells, apart: any text is a search, and they must never push the pages out. */
const SEARCH_SHELLS_BYTES = 8 * 1024 * 1024;
/**
 * Brotli's quality for pages put together per reader or per like (decision 029): a 45 KB page in
 * ~0.8 ms rather than ~2.7 at 5, ~10 % larger.
 */
const LIVE_PAGE_BROTLI_QUALITY = 3;
/** A member's page is made again after this long even when nothing changed. */
const MEMBER_PAGE_MAX_AGE_MS = 10 * 60 * 1000;

/**
 * Signed-in members' pages from their shells (decision 021): `serve` sends a member's page and
 * says "sent"; otherwise (no session, a page that is no shell) the page is to be rendered whole,
 * for the viewer read here if any.
 */
export function memberPageServer(
  host: PageHost & {
    islands: { renderIslands?: RenderIslands };
    /**
     * Render every member page from a shell whole as well, and fail (500) where the two differ:
     * the tests' check that a shell's page is exactly the page (decision 021).
     */
    verifyMemberPages?: boolean | undefined;
  },
) {
  const { deps, handle, rendering, siteInfo, secureCookies, siteOrigin, imageOrigins } = host;
  const { contentVersion, limited } = host;
  const { renderIslands } = host.islands;
  const memberShells = renderIslands ? new MemberShells(MEMBER_SHELLS_BYTES) : undefined;
  const searchShells = new MemberShells(SEARCH_SHELLS_BYTES);
  const visitorShells = new MemberShells(VISITOR_SHELLS_BYTES);
  const liveTexts = new LiveTexts();
  const liveIslands = new LiveIslands();
  const memberPages = new PageCache({
    maxBytes: MEMBER_PAGES_BYTES,
    maxAgeMs: MEMBER_PAGE_MAX_AGE_MS,
  });

  /**
   * A page read as a member's page is made, in a render slot: from its address alone (no cookie,
   * no header but what a page needs), for `viewer`, or for every member when `shell` is given.
   */
  const renderMemberPage = async (
    url: URL,
    page: { viewer?: Viewer; shell?: ShellRecorder; nonce: string; theme: Theme },
  ) => {
    const site = await siteInfo();
    return rendering.run(async (outsideSlot) => {
      const answer = await handle(new Request(url, { headers: { accept: "text/html" } }), {
        deps,
        site,
        viewer: page.viewer,
        ...(page.shell ? { shell: page.shell } : {}),
        secureCookies,
        cspNonce: page.nonce,
        theme: page.theme,
        limit: () => Promise.resolve(undefined),
        outsideSlot,
      });
      return { response: answer, body: await answer.text() };
    });
  };

  /** A page's shell: the page rendered for every member (or, `forMembers` false, visitor). */
  const makeShell = async (url: URL, version: string, theme: Theme, forMembers = true) => {
    const recorder = shellRecorder(forMembers);
    const nonce = randomBytes(16).toString("base64");
    const { response, body } = await renderMemberPage(url, { shell: recorder, nonce, theme });
    if (response.status !== 200 || response.headers.has("set-cookie")) return undefined;
    // A visitors' page is kept as a shared one is: never one that says how it may be cached.
    if (!forMembers && response.headers.has("cache-control")) return undefined;
    const headers = [...response.headers].filter(([name]) => name !== "cache-control");
    return cutShell(body, recorder, { version, nonce, status: response.status, headers });
  };

  /**
   * Sends a signed-in member's page from its shell (decision 021) and says "sent"; otherwise (no
   * session, a page that is no shell) the page is rendered whole, for the viewer read here if any.
   */
  const renderForMember = async (
    request: FastifyRequest,
    reply: FastifyReply,
    address: string,
  ): Promise<"sent" | { viewer: Viewer | undefined } | undefined> => {
    if (!memberShells || !renderIslands) return undefined;
    const versions = await versionsOfPage(contentVersion, address);
    if (versions === undefined) return undefined;
    const version = versions.page;
    const viewer = await viewerOf(deps, request, secureCookies);
    if (viewer) noteViewer(request, viewer.actor.id);
    if (!viewer || memberPageIsWholeFor(address, viewer)) return { viewer };
    const theme = themeOfRequest(request);
    // The header shows the day: a shell is made again when it changes.
    const day = new Date().toISOString().slice(0, 10);
    const key = `${address} theme=${theme} ${day}`;
    const url = new URL(address, siteOrigin);
    const search = isSearchAddress(address);
    const shells = search ? searchShells : memberShells;
    // A search made afresh spends the member's allowance, as it does for a visitor; one kept costs
    // nothing. Refused, the page is rendered whole for them and says so (never kept).
    if (search && limited && !shells.has(key, versions.shell)) {
      if ((await limited(request, "search")) !== undefined) return { viewer };
    }
    const shell = await shells.get(key, versions.shell, () =>
      makeShell(url, versions.shell, theme).catch((error: unknown) => {
        request.log.error({ err: error }, "could not make a member page's shell");
        throw error;
      }),
    );
    if (!shell) return { viewer };
    // A viewer's page is kept by what makes it (the shell, where its post's likes and comments
    // have got to, and their parts), so a member who reads it again, nothing changed, costs their
    // reads alone; any change is another page.
    const parts = await readParts(shell, viewer);
    const reader = [...parts.values()].map((part) => part.text).join("\n");
    const pageKey = `${key}\n${version}\n${reader}`;
    let page = memberPages.get(pageKey, version, Date.now());
    if (!page) {
      const live = await readLiveParts(shell, address, versions, liveTexts);
      const html = composeMemberPage(shell, new Map([...live, ...parts]), renderIslands, {
        islands: liveIslands,
        key,
        reader,
      });
      if (host.verifyMemberPages) {
        const whole = await renderMemberPage(url, { viewer, nonce: shell.nonce, theme });
        const differs = firstDifference(html, whole.body);
        if (differs !== undefined) {
          throw new Error(`A member page differs from its whole render at ${address}: ${differs}`);
        }
      }
      const body = Buffer.from(html);
      page = {
        version,
        status: shell.status,
        storedAt: Date.now(),
        contentType: "text/html; charset=utf-8",
        body,
        etag: "",
        csp: pageCsp(inlineScriptHashes(html, shell.nonce), siteOrigin, imageOrigins),
        encoded: new Map(),
        // One member's, made again whenever their parts or the post's likes or comments change.
        brotliQuality: LIVE_PAGE_BROTLI_QUALITY,
      };
      memberPages.set(pageKey, page);
    }
    reply.status(page.status ?? 200);
    for (const [name, value] of shell.headers) void reply.header(name, value);
    void reply
      .header("content-security-policy", page.csp)
      .header("cache-control", "private, no-store")
      .header("vary", "Cookie, Accept-Encoding");
    const encoding = preferredEncoding(request.headers["accept-encoding"]);
    if (!encoding) {
      void reply.send(page.body);
      return "sent";
    }
    void reply
      .header("content-encoding", encoding)
      .send(memberPages.encode(pageKey, page, encoding));
    return "sent";
  };

  /**
   * A visitor's page with live parts (a post page, decision 029) from the visitors' shell and
   * where its post's likes and comments have got to, to keep as any shared page; undefined for
   * other pages and where there is no shell (a draft, a 404): those are rendered whole.
   */
  const composeForVisitor = async (
    request: FastifyRequest,
    address: string,
    versions: PageVersions,
  ): Promise<CachedPage | undefined> => {
    const url = new URL(address, siteOrigin);
    // A client navigation's data (`.data`) is its loaders' answer alone: rendered whole.
    if (!renderIslands || postOfPage(address) === undefined || url.pathname.endsWith(".data")) {
      return undefined;
    }
    const theme = themeOfRequest(request);
    const day = new Date().toISOString().slice(0, 10);
    const key = `${address} theme=${theme} ${day}`;
    const shell = await visitorShells.get(key, versions.shell, () =>
      makeShell(url, versions.shell, theme, false).catch((error: unknown) => {
        request.log.error({ err: error }, "could not make a visitors' page shell");
        throw error;
      }),
    );
    if (!shell) return undefined;
    const live = await readLiveParts(shell, address, versions, liveTexts);
    const html = composeMemberPage(shell, live, renderIslands, {
      islands: liveIslands,
      key,
      reader: "",
    });
    if (host.verifyMemberPages) {
      const whole = await renderMemberPage(url, { nonce: shell.nonce, theme });
      const differs = firstDifference(html, whole.body);
      if (differs !== undefined) {
        throw new Error(`A visitor's page differs from its whole render at ${address}: ${differs}`);
      }
    }
    const body = Buffer.from(html);
    return {
      version: versions.page,
      status: 200,
      storedAt: Date.now(),
      contentType: "text/html; charset=utf-8",
      body,
      etag: etagOf(body),
      csp: pageCsp(inlineScriptHashes(html, shell.nonce), siteOrigin, imageOrigins),
      encoded: new Map(),
      // Made again on every like or comment of its post: compressed at less cost.
      brotliQuality: LIVE_PAGE_BROTLI_QUALITY,
    };
  };
  return { renderForMember, composeForVisitor };
}
