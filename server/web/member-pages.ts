import { randomBytes } from "node:crypto";
import { viewerPartText } from "../../contract/viewer-part.js";
import type { RecordedIsland, ShellRecorder, Viewer } from "../../contract/site-host.js";
import { KeptEntries } from "./kept-entries.js";
import type { LiveIslands } from "./live-parts.js";

/**
 * Signed-in pages from a shell (decision 021): the page rendered once per address, theme and
 * content version for every member, with markers where each viewer's parts go; per request only
 * those parts are read and rendered, and put in their places.
 */

// Markers are private-use characters around a secret drawn at start and a name: nothing a writer
// or a reader sends can hold one (nor guess it), and no escaping in HTML, JSON or React Router's
// data script changes them.
const SECRET = randomBytes(12).toString("base64url");
const OPEN = "\uE000";
const CLOSE = "\uE001";
const MARKER = new RegExp(`${OPEN}${SECRET}:([^${CLOSE}]{1,200})${CLOSE}`, "g");

const partName = (route: string) => `part-${route}`;
/** The name in a marker. */
const nameOf = (marker: string) => marker.slice(OPEN.length + SECRET.length + 1, -CLOSE.length);

/** A recorder for a shell of every member's page, or (`forMembers` false) every visitor's. */
export function shellRecorder(forMembers = true): ShellRecorder {
  return {
    forMembers,
    marker: (name) => `${OPEN}${SECRET}:${name}${CLOSE}`,
    parts: new Map(),
    liveParts: new Map(),
    islands: [],
  };
}

/** A member page's shell: its HTML cut at the markers, and what fills each. */
export interface MemberShell {
  version: string;
  /**
   * The nonce its scripts carry, the same for every member: their pages' policy lists the scripts'
   * hashes instead (a page's data script is its viewer's own), as visitors' shared pages do.
   */
  nonce: string;
  status: number;
  headers: [string, string][];
  /** Text and marker names in turn: text, name, text, …, text. */
  pieces: string[];
  recorder: ShellRecorder;
}

/**
 * The shell of a render, or undefined when it cannot be one: a marker React Router's data script
 * split, or an island or part without its marker (then every member gets a full render).
 */
export function cutShell(
  html: string,
  recorder: ShellRecorder,
  made: Omit<MemberShell, "pieces" | "recorder">,
): MemberShell | undefined {
  const pieces = html.split(MARKER);
  const names = new Set(pieces.filter((_, index) => index % 2 === 1));
  const expected = [
    ...[...recorder.parts.keys(), ...recorder.liveParts.keys()].map(partName),
    ...recorder.islands.map((island) => nameOf(island.marker)),
  ];
  if (!expected.every((name) => names.has(name))) return undefined;
  if ([...names].some((name) => !expected.includes(name))) return undefined;
  return { ...made, pieces, recorder };
}

/**
 * A string as it stands in React Router's data script: escaped as a JSON string by its encoding
 * (turbo-stream), as a JSON string again around the whole chunk, then for HTML. Each escape works
 * one character at a time, so a marker inside the chunk becomes this in place.
 */
function inDataScript(text: string) {
  const once = JSON.stringify(text).slice(1, -1);
  return JSON.stringify(once)
    .slice(1, -1)
    .replace(
      /[&><\u2028\u2029]/g,
      (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
    );
}

/** The site build's renderer of a page's islands for a viewer (app/entry.server.tsx). */
export type RenderIslands = (
  islands: readonly RecordedIsland[],
  dataOf: (route: string) => unknown,
) => string[];

/** A part's text (`viewerPartText`), and the same as it stands in the page's data script. */
export interface PartText {
  text: string;
  script: string;
  /** A live part's: the version of what it shows, which its islands' HTML is kept under. */
  version?: string;
}

export const partText = (text: string): PartText => ({ text, script: inDataScript(text) });

/** Each route's part for `viewer`, as the text its islands read, by route. */
export async function readParts(shell: MemberShell, viewer: Viewer) {
  const parts = new Map<string, PartText>();
  for (const [route, read] of shell.recorder.parts) {
    parts.set(route, partText(viewerPartText(route, await read(viewer))));
  }
  return parts;
}

/**
 * Where a page's live islands' HTML is kept (decision 029): by `key` (the shell's address, theme
 * and day) and `reader` (a member's parts' texts; empty for visitors), for the shell and the
 * version of the live part each shows.
 */
export interface KeptIslands {
  islands: LiveIslands;
  key: string;
  reader: string;
}

/**
 * The page of `shell` for a viewer's `parts`: their islands rendered (a live island's kept HTML
 * reused while its part and the reader are the same) and all put in place.
 */
export function composeMemberPage(
  shell: MemberShell,
  parts: ReadonlyMap<string, PartText>,
  renderIslands: RenderIslands,
  kept?: KeptIslands,
): string {
  const fills = new Map<string, string>();
  for (const [route, part] of parts) fills.set(partName(route), part.script);
  // As the browser will see it: what JSON keeps of the data, no more; parsed only for an island
  // rendered here.
  const dataOf = new Map<string, unknown>();
  const read = (route: string) => {
    if (!dataOf.has(route)) {
      const text = parts.get(route)?.text;
      dataOf.set(
        route,
        text === undefined ? undefined : (JSON.parse(text) as { data: unknown }).data,
      );
    }
    return dataOf.get(route);
  };
  const { islands } = shell.recorder;
  const keptAs = (island: RecordedIsland, index: number) => {
    const version = parts.get(island.route)?.version;
    if (!kept || !island.live || version === undefined) return undefined;
    return {
      key: `${kept.key}\n${String(index)}\n${kept.reader}`,
      version: `${shell.nonce}\n${version}`,
    };
  };
  const htmls = islands.map((island, index) => {
    const as = keptAs(island, index);
    return as && kept?.islands.get(as.key, as.version);
  });
  const missing = islands.filter((_, index) => htmls[index] === undefined);
  const rendered = missing.length > 0 ? renderIslands(missing, read) : [];
  let next = 0;
  islands.forEach((island, index) => {
    let html = htmls[index];
    if (html === undefined) {
      html = rendered[next++] ?? "";
      const as = keptAs(island, index);
      // Kept as a copy of its own: a piece of a render's text holds on to the whole of it (V8
      // slices strings), so a kept comment count would keep every island rendered beside it.
      if (as) kept?.islands.keep(as.key, as.version, Buffer.from(html).toString());
    }
    fills.set(nameOf(island.marker), html);
  });
  let page = "";
  shell.pieces.forEach((piece, index) => {
    page += index % 2 === 0 ? piece : (fills.get(piece) ?? "");
  });
  return page;
}

/**
 * The member pages made from shells, with the page numbers each reads (as the visitors' shared
 * pages, page-cache.ts): only pages whose every part that differs between members is an island. The home's Following tab is each reader's own, so it is rendered whole.
 */
const MEMBER_PAGES: readonly {
  path: RegExp;
  reads: readonly string[];
  /** Parameters read as text, kept as asked (a search's words). */
  texts?: readonly string[];
  not?: string;
}[] = [
  { path: /^\/$/, reads: [], not: "tab" },
  { path: /^\/posts$/, reads: ["page"] },
  { path: /^\/posts\/categories\/[^/]+$/, reads: ["page"] },
  { path: /^\/tags\/[^/]+$/, reads: ["page"] },
  { path: /^\/posts\/details\/[^/]+$/, reads: ["comments"] },
  // Anyone's profile but one's own (an admin's: every profile), whose page is theirs alone
  // (`wholeFor`). The tabs of drafts and scheduled posts are for those two only.
  { path: /^\/profile\/[^/]+$/, reads: ["page"], not: "tab" },
  { path: /^\/@[^/]+$/, reads: ["page"] },
  // Kept in a budget of their own: any text is a search (decision 015).
  { path: /^\/search$/, reads: ["page"], texts: ["q"] },
];

/**
 * Whether a member page is the viewer's own rather than every member's, and so rendered whole for
 * them: their own profile (its owner's tools, drafts, e-mail) or, for an admin, anyone's.
 */
export function memberPageIsWholeFor(address: string, viewer: Pick<Viewer, "actor">) {
  const segment = /^\/profile\/([^/?]+)/.exec(address)?.[1];
  if (segment === undefined) return false;
  if (viewer.actor.isAdmin) return true;
  try {
    return decodeURIComponent(segment) === viewer.actor.id;
  } catch {
    return true;
  }
}

/** The address a member page's shell is made and kept under, or undefined for other pages. */
export function memberPageAddress(pathname: string, search: string): string | undefined {
  // A client navigation's data (`.data`) is its loaders' answer alone: rendered for the viewer.
  if (pathname.endsWith(".data")) return undefined;
  const page = MEMBER_PAGES.find((member) => member.path.test(pathname));
  if (!page) return undefined;
  const asked = new URLSearchParams(search);
  if (page.not !== undefined && asked.has(page.not)) return undefined;
  const kept = new URLSearchParams();
  for (const name of page.texts ?? []) {
    const value = asked.get(name);
    if (value !== null) kept.set(name, value);
  }
  for (const name of page.reads) {
    // Page numbers only, written one way: anything else reads as no number (the default page),
    // so a member cannot make a shell of the same page under many addresses.
    const value = Number(asked.get(name));
    if (Number.isSafeInteger(value) && value >= 1) kept.set(name, String(value));
  }
  const query = kept.toString();
  return query ? `${pathname}?${query}` : pathname;
}

/** What a shell holds, roughly: its HTML, and as much again in the data its islands close over. */
const sizeOf = (shell: MemberShell | undefined) =>
  shell ? 2 * shell.pieces.reduce((total, piece) => total + piece.length, 0) : 200;

/**
 * Shells kept by key (address, theme and day) for their content version, the most recently used
 * last, within a byte budget. One render makes a shell however many members ask for it at once,
 * and a page that is no shell (a draft, a 404, a redirect) is remembered as none until the content
 * changes; a render that failed is not remembered.
 */
export class MemberShells {
  private readonly entries: KeptEntries<{ version: string; shell?: MemberShell }>;
  private readonly making = new Map<string, Promise<MemberShell | undefined>>();

  constructor(maxBytes: number) {
    this.entries = new KeptEntries({ maxBytes, sizeOf: (_, entry) => sizeOf(entry.shell) });
  }

  /** Whether what `key` is under `version` is known (a shell, or none), without making it. */
  has(key: string, version: string) {
    return this.entries.peek(key)?.version === version;
  }

  async get(
    key: string,
    version: string,
    make: () => Promise<MemberShell | undefined>,
  ): Promise<MemberShell | undefined> {
    const kept = this.entries.use(key);
    if (kept?.version === version) return kept.shell;
    if (kept) this.entries.delete(key);
    const flight = `${version}\n${key}`;
    const pending = this.making.get(flight);
    if (pending) return pending;
    const made = make().then(
      (shell) => {
        this.entries.keep(key, { version, ...(shell ? { shell } : {}) });
        return shell;
      },
      // Not remembered: the next member asks again.
      () => undefined,
    );
    this.making.set(flight, made);
    try {
      return await made;
    } finally {
      this.making.delete(flight);
    }
  }
}
