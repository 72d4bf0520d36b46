import type MarkdownItFactory from "markdown-it";
import type { Token } from "markdown-it";
import { lazyModule } from "../../lib/lazy-module.js";
import type { BodyFormat } from "../schema.js";

/*
 * The body renderer as migrations 004 and 008 ran with it, kept here (decision 027): a migration
 * backfills what the code of its day wrote, and an old database migrated next year must get the
 * same rows, whatever core/posts/body.ts has become. Only what those backfills read is kept:
 * a plain body's HTML, excerpt and reading time (004), and a body's whole prose text (008).
 */

const EXCERPT_MAX = 200;
const WORDS_PER_MINUTE = 230;

const countWords = (text: string) =>
  text.match(/[\p{L}\p{N}]+(?:['’.-][\p{L}\p{N}]+)*/gu)?.length ?? 0;

const flatText = (text: string) => text.replace(/\s+/g, " ").trim();

function excerptOf(text: string) {
  const flat = flatText(text);
  if (flat.length <= EXCERPT_MAX) return flat;
  const cut = flat.slice(0, EXCERPT_MAX - 1).replace(/[\uD800-\uDBFF]$/, "");
  const atWord = cut.replace(/\s+\S*$/, "");
  return `${(atWord.length > EXCERPT_MAX / 2 ? atWord : cut).trimEnd()}…`;
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (char) => `&#${String(char.charCodeAt(0))};`);

/** Migration 004: a body written before Markdown, as its post page showed it. */
export function renderPlainBody(source: string) {
  const html = source
    .split(/\n{2,}/)
    .map((paragraph) => `<p>${escapeHtml(paragraph).replace(/\r\n?|\n/g, "<br>\n")}</p>`)
    .join("\n");
  return {
    html,
    excerpt: excerptOf(source),
    readingMinutes: Math.max(1, Math.round(countWords(source) / WORDS_PER_MINUTE)),
  };
}

const loadMarkdownIt = lazyModule<typeof MarkdownItFactory>("markdown-it");
const PLUGINS = ["markdown-it-abbr", "markdown-it-deflist"];
type MarkdownIt = ReturnType<typeof MarkdownItFactory>;
let markdown: MarkdownIt | undefined;

function parser() {
  if (markdown) return markdown;
  const md = loadMarkdownIt()("default", { html: true, linkify: true, breaks: true });
  md.validateLink = () => true;
  for (const plugin of PLUGINS) md.use(lazyModule<(md: MarkdownIt) => void>(plugin)());
  markdown = md;
  return md;
}

// eslint-disable-next-line no-control-regex -- browsers skip these inside a URL's scheme
const BLANKS = /[\u0000-\u0020\u007f]/g;
const TASK_MARKER = /^\[([ xX])\](?=\s|$)/;
const KEPT_TAG = /^<(\/?)(sub|sup)>$/i;

function isScriptUrl(md: MarkdownIt, url: string) {
  let decoded = md.utils.unescapeAll(url);
  try {
    decoded = decodeURIComponent(decoded);
  } catch {
    // A stray % is no escape.
  }
  return /^(javascript|vbscript):/.test(decoded.replace(BLANKS, "").toLowerCase());
}

function isScriptHtml(md: MarkdownIt, html: string) {
  const decoded = md.utils.unescapeAll(html);
  if (/<\/?\s*script\b/i.test(decoded)) return true;
  return (decoded.match(/<[a-z][^>]*>?/gi) ?? []).some(
    (tag) =>
      /[\s/"']on[a-z]+\s*=/i.test(tag) || /(?:javascript|vbscript):/i.test(tag.replace(BLANKS, "")),
  );
}

/** The `<sub>`/`<sup>` tags that open and close in order: shown as tags, so not text. */
function keptTags(children: readonly Token[]) {
  const kept = new Set<Token>();
  const open: { token: Token; name: string }[] = [];
  for (const child of children) {
    const match = child.type === "html_inline" ? KEPT_TAG.exec(child.content) : null;
    if (!match) continue;
    const name = (match[2] ?? "").toLowerCase();
    if (match[1] === "") {
      open.push({ token: child, name });
      continue;
    }
    const last = open.at(-1);
    if (last?.name !== name) continue;
    open.pop();
    kept.add(last.token).add(child);
  }
  return kept;
}

/** The prose of one paragraph, heading or cell; undefined when it holds a script. */
function inlineProse(md: MarkdownIt, children: readonly Token[], task: boolean) {
  const kept = keptTags(children);
  const prose: string[] = [];
  for (const [index, child] of children.entries()) {
    if (child.type === "html_inline" && !kept.has(child)) {
      if (isScriptHtml(md, child.content)) return undefined;
      prose.push(child.content);
    }
    if (child.type === "link_open" && isScriptUrl(md, String(child.attrGet("href") ?? ""))) {
      return undefined;
    }
    if (child.type === "image" && isScriptUrl(md, String(child.attrGet("src") ?? ""))) {
      return undefined;
    }
    if (child.type === "text") {
      const marker = index === 0 && task ? TASK_MARKER.exec(child.content) : null;
      prose.push(
        marker ? child.content.slice(marker[0].length).replace(/^\s+/, "") : child.content,
      );
    }
    if (child.type === "code_inline") prose.push(child.content);
    if (child.type === "softbreak" || child.type === "hardbreak") prose.push(" ");
  }
  return prose.join("");
}

/** Migration 008: the whole prose of a body (no code), its blanks collapsed, for search. */
export function bodyText(source: string, format: BodyFormat) {
  if (format === "plain") return flatText(source);
  const md = parser();
  const tokens = md.parse(source, {});
  const prose: string[] = [];
  for (const [index, token] of tokens.entries()) {
    if (token.type === "html_block") {
      // A body refused today (a script) was stored before the check: its source is its text.
      if (isScriptHtml(md, token.content)) return source;
      prose.push(token.content);
    }
    if (token.type === "fence" || token.type === "code_block") continue;
    if (token.type === "inline") {
      const task =
        tokens[index - 1]?.type === "paragraph_open" &&
        tokens[index - 2]?.type === "list_item_open";
      const text = inlineProse(md, token.children ?? [], task);
      if (text === undefined) return source;
      prose.push(text);
    }
    if (token.type.endsWith("_close") || token.type === "inline") prose.push(" ");
  }
  return flatText(prose.join(""));
}
