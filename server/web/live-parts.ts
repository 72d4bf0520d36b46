import { viewerPartText } from "../../contract/viewer-part.js";
import { KeptEntries } from "./kept-entries.js";
import type { MemberShell } from "./member-pages.js";

/** Live parts' texts kept at once (a post page's comments section is a few KB). */
const LIVE_TEXTS_BYTES = 16 * 1024 * 1024;

/**
 * The texts of pages' live parts (decision 029), kept by address and name for the state of the
 * page's post's likes and comments: read once per like or comment, whoever reads the page next,
 * visitor or member, and however many ask at once.
 */
export class LiveTexts {
  private readonly entries = new KeptEntries<{ version: string; text: string }>({
    maxBytes: LIVE_TEXTS_BYTES,
    sizeOf: (key, entry) => key.length + entry.text.length,
  });
  private readonly making = new Map<string, Promise<string>>();

  async get(key: string, version: string, read: () => Promise<string>): Promise<string> {
    const kept = this.entries.use(key);
    if (kept?.version === version) return kept.text;
    const flight = `${version}\n${key}`;
    const pending = this.making.get(flight);
    if (pending) return pending;
    const made = read();
    this.making.set(flight, made);
    try {
      const text = await made;
      this.entries.keep(key, { version, text });
      return text;
    } finally {
      this.making.delete(flight);
    }
  }
}

/**
 * A shell's live parts for the page at `address` as its post stands at `version`, by name: kept,
 * or read once for everyone.
 */
export async function readLiveParts(
  shell: MemberShell,
  address: string,
  version: string,
  texts: LiveTexts,
) {
  const parts = new Map<string, string>();
  for (const [name, read] of shell.recorder.liveParts) {
    const text = await texts.get(`${address}\n${name}`, version, async () =>
      viewerPartText(name, await read()),
    );
    parts.set(name, text);
  }
  return parts;
}
