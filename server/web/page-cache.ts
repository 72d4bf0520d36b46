import { createHash } from "node:crypto";
import zlib from "node:zlib";
import type { FastifyReply, FastifyRequest } from "fastify";
import { KeptEntries } from "./kept-entries.js";

/**
 * Renders of anonymous pages, kept until content changes (the content version moves on), they are
 * older than `maxAgeMs`, nobody asked for them for a minute, or the byte budget pushes them out
 * (least recently used first). An entry holds the body once and each compressed form once, made
 * the first time someone asks for it.
 */
export interface CachedPage {
  /** The content version the render started under. */
  version: string;
  /** 404 for the page every unknown address shares (`NOT_FOUND_ADDRESS`); 200 when absent. */
  status?: number;
  storedAt: number;
  contentType: string;
  body: Buffer;
  etag: string;
  /** The Content-Security-Policy that allows exactly this body's inline scripts. */
  csp: string | undefined;
  /**
   * Brotli's quality for it: 5 unless set (a page made once and sent many times); lower for one
   * made again on every like or comment (decision 029).
   */
  brotliQuality?: number;
  encoded: Map<Encoding, Buffer>;
  /**
   * For a list that shows posts' counts: the posts listed, and how many changes to posts' likes
   * and comments there had been when it was made (current while none of them changed since).
   */
  listed?: { ids: readonly string[]; count: number };
}

export type Encoding = "br" | "gzip";

export interface PageCacheOptions {
  maxBytes: number;
  maxAgeMs: number;
}

export class PageCache {
  private readonly entries: KeptEntries<CachedPage>;
  /** Answers being made right now, by key and version: the others asking wait for them. */
  private readonly making = new Map<string, Promise<CachedPage | undefined>>();

  constructor(private readonly options: PageCacheOptions) {
    this.entries = new KeptEntries({
      maxBytes: options.maxBytes,
      sizeOf,
      largestBytes: options.maxBytes / 8,
    });
  }

  /** The entry kept under `key`, whatever its version (to learn what it depends on). */
  peek(key: string): CachedPage | undefined {
    return this.entries.peek(key);
  }

  get(key: string, version: string, now: number): CachedPage | undefined {
    const entry = this.entries.use(key, now);
    if (!entry) return undefined;
    if (entry.version !== version || now - entry.storedAt > this.options.maxAgeMs) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  /**
   * Waits for an answer to `key` under `version` that another request is making, then returns it
   * (undefined if none was being made, or it failed). After a write, fifty readers of the same page
   * then cost one render, not fifty at once; and an answer too large to keep (the whole posts list
   * of a big site) is still made once for all who asked while it was being made.
   */
  async whenMade(
    key: string,
    version: string,
    /** What more the makers must have started from, when the version alone does not say it. */
    flight = version,
  ): Promise<CachedPage | undefined> {
    const making = this.making.get(`${flight}\n${key}`);
    if (!making) return undefined;
    return (await making) ?? (flight === version ? this.get(key, version, Date.now()) : undefined);
  }

  /**
   * Says this request is making `key` under `flightOf` (its version, or what `whenMade` is given
   * as its flight); call the result once done, with the answer
   * when there is one to share (kept or not), or with nothing when it failed.
   */
  startMaking(key: string, flightOf: string): (made?: CachedPage) => void {
    const flight = `${flightOf}\n${key}`;
    let done: ((made: CachedPage | undefined) => void) | undefined;
    const making = new Promise<CachedPage | undefined>((resolve) => {
      done = resolve;
    });
    this.making.set(flight, making);
    return (made) => {
      if (this.making.get(flight) === making) this.making.delete(flight);
      done?.(made);
    };
  }

  set(key: string, entry: CachedPage) {
    this.entries.keep(key, entry);
  }

  /** The body in `encoding`, compressed once and kept with the entry. */
  encode(key: string, entry: CachedPage, encoding: Encoding): Buffer {
    const known = entry.encoded.get(encoding);
    if (known) return known;
    const encoded = exactCopy(
      encoding === "br"
        ? zlib.brotliCompressSync(entry.body, {
            params: {
              [zlib.constants.BROTLI_PARAM_QUALITY]: brotliQualityOf(entry),
              [zlib.constants.BROTLI_PARAM_SIZE_HINT]: entry.body.length,
            },
          })
        : zlib.gzipSync(entry.body, { level: 6 }),
    );
    // Kept with the entry for whoever else holds it; only an entry in the cache counts in its budget.
    entry.encoded.set(encoding, encoded);
    this.entries.grow(key, entry, encoded.length);
    return encoded;
  }

  get size() {
    return this.entries.size;
  }
}

/**
 * `buffer` on memory of its own, exactly its size. zlib's one-shot calls answer with a view of the
 * output chunk they wrote into (16 KB up to Node 22, 64 KB from Node 24), so a page compressed to
 * 10 KB and kept as it came would hold the whole chunk, and the cache would count a sixth of what
 * it keeps (docs/decisions/009-node-runtimes.md).
 */
export function exactCopy(buffer: Buffer): Buffer {
  if (buffer.byteOffset === 0 && buffer.length === buffer.buffer.byteLength) return buffer;
  const copy = Buffer.allocUnsafeSlow(buffer.length);
  buffer.copy(copy);
  return copy;
}

function sizeOf(key: string, entry: CachedPage) {
  let size = key.length + entry.body.length + (entry.csp?.length ?? 0) + 200;
  for (const encoded of entry.encoded.values()) size += encoded.length;
  return size;
}

/**
 * Answers with a kept render: 304 when the client's copy is current, else the body in the best
 * encoding the client takes. `headers` say how long others may keep it and what it varies on.
 */
export function sendShared(
  request: FastifyRequest,
  reply: FastifyReply,
  cache: PageCache,
  key: string,
  page: CachedPage,
  headers: Record<string, string>,
) {
  void reply.headers(headers);
  if (page.csp) void reply.header("content-security-policy", page.csp);
  const status = page.status ?? 200;
  // Validators are a found page's: a 404 is sent whole (RFC 9110 13.2.1).
  if (status === 200) {
    void reply.header("etag", page.etag);
    if (matchesEtag(request.headers["if-none-match"], page.etag)) return reply.status(304).send();
  }
  void reply.status(status).type(page.contentType);
  const encoding = preferredEncoding(request.headers["accept-encoding"]);
  if (!encoding) return reply.send(page.body);
  return reply.header("content-encoding", encoding).send(cache.encode(key, page, encoding));
}

/**
 * Above this size a body is compressed at brotli's quality 1: a post's JSON with 2,000 comments
 * (~0.9 MB) in ~10 ms rather than ~45 at 5, for a body ~3 % larger (decision 029).
 */
export const LARGE_BODY_BYTES = 256 * 1024;

const brotliQualityOf = (entry: CachedPage) =>
  entry.body.length > LARGE_BODY_BYTES ? 1 : (entry.brotliQuality ?? 5);

/** The best encoding the client accepts, of the two kept (brotli first). */
export function preferredEncoding(acceptEncoding: string | undefined): Encoding | undefined {
  if (!acceptEncoding) return undefined;
  const accepted = new Map<string, number>();
  for (const part of acceptEncoding.toLowerCase().split(",")) {
    const [name = "", ...params] = part.trim().split(";");
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    accepted.set(name.trim(), q === undefined ? 1 : Number(q));
  }
  const wants = (name: string) => (accepted.get(name) ?? accepted.get("*") ?? 0) > 0;
  if (wants("br")) return "br";
  if (wants("gzip")) return "gzip";
  return undefined;
}

/** A weak validator for a body (the same page may be sent compressed or not). */
export const etagOf = (body: Buffer) =>
  `W/"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`;

/** Whether an If-None-Match header names this validator. */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string) {
  if (!ifNoneMatch) return false;
  const bare = etag.replace(/^W\//, "");
  return ifNoneMatch
    .split(",")
    .map((tag) => tag.trim().replace(/^W\//, ""))
    .some((tag) => tag === bare || tag === "*");
}

const INLINE_SCRIPT = /<script\b([^>]*)>([\s\S]*?)<\/script>/gi;

/**
 * The CSP sources that allow the page's own inline scripts by their hashes. A page served to many
 * people cannot carry one person's nonce, so shared renders list their scripts' hashes instead.
 * Only the scripts the renderer wrote (those carrying this render's nonce) are listed: a script
 * that reached the HTML any other way (user text that escaped its escaping) stays blocked, so the
 * policy remains a second wall on shared pages too.
 */
export function inlineScriptHashes(html: string, nonce: string): string[] {
  const hashes = new Set<string>();
  const ours = `nonce="${nonce}"`;
  for (const match of html.matchAll(INLINE_SCRIPT)) {
    const [, attributes = "", content = ""] = match;
    if (/\bsrc\s*=/i.test(attributes) || content.length === 0) continue;
    if (!attributes.includes(ours)) continue;
    hashes.add(`'sha256-${createHash("sha256").update(content, "utf8").digest("base64")}'`);
  }
  return [...hashes];
}

/**
 * The pages anyone sees the same (for a visitor who is not signed in), whose renders may be shared,
 * each with the query parameters its route reads: lists, posts, categories, profiles and the plain
 * forms. Not the links that carry a token (verifying an e-mail does something), not the admin
 * pages. A route that comes to read another parameter must name it here, or anonymous visitors
 * never see it take effect.
 */
const SHARED_PAGES: readonly { path: RegExp; reads: readonly string[] }[] = [
  { path: /^\/(?:_root)?$/, reads: ["from"] },
  { path: /^\/posts$/, reads: ["page"] },
  { path: /^\/posts\/details\/[^/]+$/, reads: ["comments"] },
  { path: /^\/posts\/categories\/[^/]+$/, reads: ["page"] },
  { path: /^\/profile\/[^/]+$/, reads: ["page"] },
  { path: /^\/@[^/]+$/, reads: ["page"] },
  // Static pages (decision 032): kept for visitors only (a draft is a 404 to them, never kept).
  { path: /^\/pages\/[^/]+$/, reads: [] },
  // A series' page (decision 032): kept for visitors; members' pages are rendered for them (its
  // writer's shows their drafts and the form that orders it).
  { path: /^\/series\/[^/]+$/, reads: [] },
  { path: /^\/login$/, reads: ["next"] },
  // Kept in the searches' own budget (`isSearchAddress`): any text is a query.
  { path: /^\/search$/, reads: ["q", "page"] },
  {
    path: /^\/(?:register|forgot-password|password-reset-successfully|menu|newsletter\/subscribe)$/,
    reads: [],
  },
];

/**
 * What every address no route knows (only the catch-all matches it) is made and kept under: one
 * "Page Not Found" render per content version and theme, however many addresses are asked for.
 * The page does not show the address asked, so one render serves them all; made from this address,
 * it could not show another's.
 */
export const NOT_FOUND_ADDRESS = "/404";

/** Whether a shared address is a search's, kept apart from the pages (decision 015). */
export const isSearchAddress = (address: string) => /^\/search(?:\.data)?(?:\?|$)/.test(address);

/** `.data` is React Router's client navigation form of a page; `_routes` picks the loaders run. */
const DATA_SUFFIX = ".data";
const DATA_READS = ["_routes"];

/**
 * The address a shared page is made and kept under: its path, then the first value of each query
 * parameter its route reads, in a fixed order. Anything else (`?utm_source=`, a cache-buster) is
 * left out, so it can neither make another render nor change the one made. Undefined for a page
 * that is not shared.
 */
export function sharedPageAddress(pathname: string, search: string): string | undefined {
  const data = pathname.endsWith(DATA_SUFFIX);
  const route = data ? pathname.slice(0, -DATA_SUFFIX.length) : pathname;
  const page = SHARED_PAGES.find((shared) => shared.path.test(route));
  if (!page) return undefined;
  const asked = new URLSearchParams(search);
  const kept = new URLSearchParams();
  for (const name of data ? [...page.reads, ...DATA_READS] : page.reads) {
    const value = asked.get(name);
    if (value !== null) kept.set(name, value);
  }
  const query = kept.toString();
  return query ? `${pathname}?${query}` : pathname;
}
