import { viewerPartText } from "../../contract/viewer-part.js";
import type { PageVersions } from "./content-version.js";
import { KeptEntries } from "./kept-entries.js";
import { partText, type MemberShell, type PartText } from "./member-pages.js";

/** Live parts' texts kept at once (a post page's comments section is a few KB). */
const LIVE_TEXTS_BYTES = 16 * 1024 * 1024;
/** Live islands' HTML kept at once, for visitors and for each member (decision 029). */
const LIVE_ISLANDS_BYTES = 16 * 1024 * 1024;

/**
 * The texts of pages' live parts (decision 029), kept by address and name for the state of what
 * they show (the page's post's likes and comments, or its comments alone): read once per like or
 * comment, whoever reads the page next, visitor or member, and however many ask at once.
 */
export class LiveTexts {
  private readonly entries = new KeptEntries<PartText & { version: string }>({
    maxBytes: LIVE_TEXTS_BYTES,
    // Two bytes a character, as for the islands below.
    sizeOf: (key, entry) => 2 * (key.length + entry.text.length + entry.script.length),
  });
  private readonly making = new Map<string, Promise<PartText & { version: string }>>();

  async get(
    key: string,
    version: string,
    read: () => Promise<string>,
  ): Promise<PartText & { version: string }> {
    const kept = this.entries.use(key);
    if (kept?.version === version) return kept;
    const flight = `${version}\n${key}`;
    const pending = this.making.get(flight);
    if (pending) return pending;
    const made = read().then((text) => ({ ...partText(text), version }));
    this.making.set(flight, made);
    try {
      const part = await made;
      this.entries.keep(key, part);
      return part;
    } finally {
      this.making.delete(flight);
    }
  }
}

/**
 * A shell's live parts for the page at `address` as its post stands at `versions`, by name: kept,
 * or read once for everyone. Each carries the version it was read for, which its islands' HTML is
 * kept under.
 */
export async function readLiveParts(
  shell: MemberShell,
  address: string,
  versions: Pick<PageVersions, "page" | "comments">,
  texts: LiveTexts,
) {
  const parts = new Map<string, PartText>();
  for (const [name, { read, keptBy }] of shell.recorder.liveParts) {
    const version = keptBy === "comments" ? versions.comments : versions.page;
    const part = await texts.get(`${address}\n${name}`, version, async () =>
      viewerPartText(name, await read()),
    );
    parts.set(name, part);
  }
  return parts;
}

/**
 * Live islands' HTML (decision 029) kept by shell, island and reader (none for visitors) for the
 * version of the live part it shows: a like renders the likes bar again and leaves the comments
 * section, whose part it did not move, as it was.
 */
export class LiveIslands {
  private readonly entries = new KeptEntries<{ version: string; html: string }>({
    maxBytes: LIVE_ISLANDS_BYTES,
    // Two bytes a character: a page's text with one character past Latin-1 is stored so whole.
    sizeOf: (key, entry) => 2 * (key.length + entry.html.length),
  });

  get(key: string, version: string) {
    const kept = this.entries.use(key);
    return kept?.version === version ? kept.html : undefined;
  }

  keep(key: string, version: string, html: string) {
    this.entries.keep(key, { version, html });
  }
}
