import TurndownService from "turndown";
import { limitHtmlDepth } from "./html-depth.js";

/**
 * HTML of another platform as Markdown (CommonMark + GFM, as this site writes bodies). Scripts,
 * styles, frames and forms are dropped with their content; whatever HTML is left is still
 * sanitized by the renderer (core/posts/body.ts) like any body.
 */
let service: TurndownService | undefined;
/** The abbreviations of the HTML being converted, defined after it. */
const abbreviations = new Map<string, string>();

/** An element as the rules read it (this project's types have no DOM). */
interface Attributed {
  nodeName: string;
  getAttribute(name: string): string | null;
}

export function htmlToMarkdown(html: string): string {
  service ??= createService();
  abbreviations.clear();
  // HTML's old name for an abbreviation.
  const markdown = service
    .turndown(limitHtmlDepth(html.replace(/<(\/?)acronym\b/gi, "<$1abbr")))
    .trim();
  if (abbreviations.size === 0) return markdown;
  const definitions = [...abbreviations].map(([text, title]) => `*[${text}]: ${title}`);
  return `${markdown}\n\n${definitions.join("\n")}`;
}

const ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: "\u00a0",
  hellip: "…",
  mdash: "—",
  ndash: "–",
  lsquo: "‘",
  rsquo: "’",
  ldquo: "“",
  rdquo: "”",
};

/** HTML character references as the characters they stand for. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[\da-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name.startsWith("#")) {
      const code =
        name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : Number(name.slice(1));
      const character = code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff);
      return character ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/** An address a link may have here: the web, mail, or this site (no scheme). */
export function isSafeHref(href: string | null): boolean {
  if (href === null) return true;
  // Browsers ignore control characters and spaces in a scheme (`java\tscript:`).
  let bare = "";
  for (let index = 0; index < href.length; index += 1) {
    const code = href.charCodeAt(index);
    if (code > 0x20 && (code < 0x7f || code > 0x9f)) bare += href[index] ?? "";
  }
  bare = bare.toLowerCase();
  const scheme = /^([a-z][a-z0-9+.-]*):/.exec(bare)?.[1];
  return scheme === undefined || ["http", "https", "mailto"].includes(scheme);
}

/** Text as Markdown that shows it literally (`*` stays a star). */
export function escapeMarkdown(text: string): string {
  service ??= createService();
  return service.escape(text);
}

/**
 * Text on one line: its lines trimmed and joined by a space (a pattern like `\s*\n\s*` would scan
 * a long run of spaces again from each of them).
 */
const oneLine = (text: string) =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .join(" ");

function createService() {
  const turndown = new TurndownService({
    headingStyle: "atx",
    codeBlockStyle: "fenced",
    bulletListMarker: "-",
    emDelimiter: "*",
    hr: "---",
  });
  turndown.remove(["script", "style", "iframe", "noscript", "form", "object", "embed", "head"]);
  // A figure is its image and its caption, one after the other.
  turndown.addRule("figcaption", {
    filter: "figcaption",
    replacement: (content) => `\n\n*${content.trim()}*\n\n`,
  });
  // GFM's strike-through for every way HTML writes it.
  turndown.addRule("strikethrough", {
    filter: ["del", "s", "strike"],
    replacement: (content) => (content.trim() === "" ? content : `~~${content}~~`),
  });
  turndown.addRule("code-like", {
    filter: ["tt", "samp"],
    replacement: (content) => (content.trim() === "" ? content : `\`${content}\``),
  });
  turndown.addRule("emphasis-like", {
    filter: ["cite", "var", "dfn"],
    replacement: (content) => (content.trim() === "" ? content : `*${content}*`),
  });
  turndown.addRule("quotation", {
    filter: "q",
    replacement: (content) => `“${content}”`,
  });
  // Markdown has no words for these: they stay HTML, which the renderer allows (core/posts/body.ts).
  // Shown as written (the one raw HTML a body may have: plain tags, decision 010).
  for (const name of ["sub", "sup"] as const)
    turndown.addRule(name, {
      filter: name,
      replacement: (content) => (content.trim() === "" ? content : `<${name}>${content}</${name}>`),
    });
  // Links a page could not follow become their text (javascript: would refuse the whole post).
  turndown.addRule("unsafe-link", {
    filter: (node) => {
      const element = node as unknown as Attributed;
      return element.nodeName === "A" && !isSafeHref(element.getAttribute("href"));
    },
    replacement: (content) => content,
  });
  turndown.addRule("keyboard", {
    filter: "kbd",
    replacement: (content) => (content.trim() === "" ? content : `\`${content}\``),
  });
  // An abbreviation is its text, its title defined once at the end: `*[HTML]: Hypertext…`.
  turndown.addRule("abbr", {
    filter: "abbr",
    replacement: (content, node) => {
      const title = (node as unknown as Attributed).getAttribute("title")?.trim() ?? "";
      if (title !== "" && content.trim() !== "") abbreviations.set(content.trim(), title);
      return content;
    },
  });
  turndown.addRule("definition-term", {
    filter: "dt",
    replacement: (content) => `\n\n${oneLine(content)}\n`,
  });
  turndown.addRule("definition", {
    filter: "dd",
    replacement: (content) => `: ${oneLine(content)}\n`,
  });
  turndown.addRule("definition-list", {
    filter: "dl",
    replacement: (content) => `\n\n${content.trim()}\n\n`,
  });
  return turndown;
}
