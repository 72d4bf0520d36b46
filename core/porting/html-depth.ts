/**
 * Another platform's HTML with its nesting cut to `HTML_DEPTH_MAX` elements, in one pass over the
 * text, before any parser sees it: the HTML parser's scope checks walk the stack of open elements
 * (time that grows with depth times length) and the Markdown converter walks the tree by
 * recursion, so 2,000 nested `<div>`s in one post would take seconds or overflow the stack. An
 * element past the limit loses its tags and keeps its content; nothing at a depth a real post has
 * (a quote in a list in a table in a figure...) changes.
 */

/**
 * Far deeper than any post written by hand, far shallower than what overflows the stack; the
 * converter's work on a list or a quote grows with its depth too (each level indents its lines).
 */
export const HTML_DEPTH_MAX = 32;

/**
 * At most this many formatting elements open again after an end tag (`<b><i>x</b>y</i>` needs
 * one): the parser would reopen every one it has, so a post of paragraphs that each leave a
 * different `<font>` open would grow with the square of its length.
 */
const REOPEN_MAX = 4;

/** Elements without content: they open nothing. */
const VOID = new Set([
  "area",
  "base",
  "br",
  "col",
  "embed",
  "hr",
  "img",
  "input",
  "link",
  "meta",
  "param",
  "source",
  "track",
  "wbr",
]);

/** Elements whose content is text up to their own end tag, never tags. */
const RAW_TEXT = new Set(["script", "style", "textarea", "title", "xmp", "iframe", "noembed"]);

/**
 * Start tags that end an open element of their own kind, as the HTML parser does (`<li>` ends the
 * `<li>` before it), unless one of `within` comes first: else a list of unclosed items would count
 * as items nested in each other.
 */
const ENDS_SIBLING: Record<string, { kinds: readonly string[]; within: readonly string[] }> = {
  li: { kinds: ["li"], within: ["ul", "ol", "menu"] },
  dt: { kinds: ["dt", "dd"], within: ["dl"] },
  dd: { kinds: ["dt", "dd"], within: ["dl"] },
  tr: { kinds: ["tr", "td", "th"], within: ["table", "thead", "tbody", "tfoot"] },
  td: { kinds: ["td", "th"], within: ["tr", "table"] },
  th: { kinds: ["td", "th"], within: ["tr", "table"] },
  option: { kinds: ["option"], within: ["select", "datalist"] },
  p: { kinds: ["p"], within: ["div", "li", "td", "th", "blockquote", "section", "article"] },
};

/** Start tags that end an open `<p>` right above them, as the HTML parser does. */
const ENDS_PARAGRAPH = new Set([
  "address",
  "article",
  "aside",
  "blockquote",
  "details",
  "div",
  "dl",
  "fieldset",
  "figure",
  "footer",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "header",
  "hr",
  "menu",
  "nav",
  "ol",
  "pre",
  "section",
  "table",
  "ul",
]);

/** Where the tag that starts at `start` (a `<`) ends: after its `>`, quoted values skipped. */
function tagEnd(html: string, start: number): number {
  let quote = "";
  let afterEquals = false;
  for (let index = start + 1; index < html.length; index += 1) {
    const character = html[index] ?? "";
    if (quote !== "") {
      if (character === quote) quote = "";
    } else if (character === ">") {
      return index + 1;
    } else if (afterEquals && (character === '"' || character === "'")) {
      quote = character;
      afterEquals = false;
    } else if (character === "=") {
      afterEquals = true;
    } else if (character.trim() !== "") {
      afterEquals = false;
    }
  }
  return html.length;
}

/** Where the text of a raw-text element ends: at its end tag, whatever its case, or the end. */
function rawTextEnd(html: string, tag: string, from: number): number {
  const endTag = new RegExp(`</${tag}`, "gi");
  endTag.lastIndex = from;
  return endTag.exec(html)?.index ?? html.length;
}

/**
 * Where the open elements a start tag ends begin (the HTML parser's rules, see ENDS_SIBLING and
 * ENDS_PARAGRAPH), or -1 when it ends none.
 */
function endsBefore(open: readonly OpenElement[], tag: string): number {
  if (ENDS_PARAGRAPH.has(tag) && open.at(-1)?.name === "p") return open.length - 1;
  const sibling = ENDS_SIBLING[tag];
  if (!sibling) return -1;
  for (let at = open.length - 1; at >= 0; at -= 1) {
    const above = open[at]?.name ?? "";
    if (sibling.within.includes(above)) return -1;
    if (sibling.kinds.includes(above)) return at;
  }
  return -1;
}

/** Elements the HTML parser opens again after an end tag closed them out of order. */
const FORMATTING = new Set([
  "a",
  "b",
  "big",
  "code",
  "em",
  "font",
  "i",
  "nobr",
  "s",
  "small",
  "strike",
  "strong",
  "tt",
  "u",
]);

/** End tags the HTML parser turns into elements when nothing is open to end. */
const KEPT_STRAY = new Set(["p", "br"]);

interface OpenElement {
  name: string;
  /** The start tag as written, to open it again. */
  tag: string;
}

/**
 * The HTML with every element deeper than `max` unwrapped (its content kept), and its tags
 * balanced (every element ended, in order) so that the parser has nothing to rebuild: an element
 * the parser would reopen by itself (a `<b>` left open across paragraphs) is counted where it is.
 * Linear in the length: each tag is read once, and the open elements are at most `max`.
 */
export function limitHtmlDepth(html: string, max = HTML_DEPTH_MAX): string {
  const open: OpenElement[] = [];
  // Start tags left out past the limit, by name: their end tags are left out with them.
  const dropped = new Map<string, number>();
  const out: string[] = [];
  let copiedUpTo = 0;
  const emit = (text: string) => out.push(text);

  /** Ends the open elements from `at` up (innermost first); formatting ones open again after. */
  const endFrom = (at: number, reopen: boolean) => {
    const ended = open.splice(at);
    for (let index = ended.length - 1; index >= 0; index -= 1)
      emit(`</${ended[index]?.name ?? ""}>`);
    if (!reopen) return [];
    return ended
      .slice(1)
      .filter((element) => FORMATTING.has(element.name))
      .slice(0, REOPEN_MAX);
  };
  const start = (element: OpenElement) => {
    if (open.length >= max) {
      dropped.set(element.name, (dropped.get(element.name) ?? 0) + 1);
      return;
    }
    open.push(element);
    emit(element.tag);
  };
  // The parser keeps at most three alike (same tag, same attributes) to open again.
  const reopen = (element: OpenElement) => {
    if (open.filter((other) => other.tag === element.tag).length < 3) start(element);
  };

  let index = html.indexOf("<");
  while (index !== -1) {
    if (html.startsWith("<!--", index)) {
      const close = html.indexOf("-->", index + 4);
      index = close === -1 ? -1 : html.indexOf("<", close + 3);
      continue;
    }
    // A tag's name runs to a space, a slash or a `>`, as the parser reads it (`<li<p>` is one).
    const name = /^<(\/?)([a-zA-Z][^\s/>]*)/.exec(html.slice(index, index + 64));
    if (!name?.[2]) {
      index = html.indexOf("<", index + 1);
      continue;
    }
    const end = tagEnd(html, index);
    const tag = name[2].toLowerCase();
    emit(html.slice(copiedUpTo, index));
    copiedUpTo = end;
    if (name[1] === "/") {
      const waiting = dropped.get(tag) ?? 0;
      const at = open.findLastIndex((element) => element.name === tag);
      if (waiting > 0) dropped.set(tag, waiting - 1);
      else if (at !== -1) endFrom(at, true).forEach(reopen);
      else if (KEPT_STRAY.has(tag)) emit(html.slice(index, end));
    } else if (VOID.has(tag)) {
      emit(html.slice(index, end));
    } else {
      const ends = endsBefore(open, tag);
      const reopened = ends === -1 ? [] : endFrom(ends, true);
      start({ name: tag, tag: html.slice(index, end) });
      reopened.forEach(reopen);
    }
    // A raw-text element's text runs to its end tag, which is read next as any tag.
    const next = name[1] !== "/" && RAW_TEXT.has(tag) ? rawTextEnd(html, tag, end) : end;
    index = html.indexOf("<", next);
  }
  emit(html.slice(copiedUpTo));
  endFrom(0, false);
  return out.join("");
}
