import type MarkdownItFactory from "markdown-it";
import type { MarkdownIt, StateCore, Token } from "markdown-it";
import type * as xssModule from "xss";
import { contentMessages } from "../../contract/content.js";
import type { BodyFormat } from "../../db/schema.js";
import { IMAGE_VARIANTS } from "../media/images.js";
import { invalid } from "../shared/errors.js";
import { lazyModule } from "../../lib/lazy-module.js";

/** What is stored beside a body, so no page view renders it again. */
export interface RenderedBody {
  /** Sanitized HTML, the only HTML from a writer that reaches a page. */
  html: string;
  /** Plain text, at most EXCERPT_MAX characters: cards, share cards, RSS. */
  excerpt: string;
  /** The whole plain text a reader reads (no code), its blanks collapsed: what search reads. */
  text: string;
  readingMinutes: number;
  /** The keys of the stored images the body shows (`images/<id>`), each once. */
  imageKeys: string[];
}

/** The size of a stored image's largest variant. */
export interface ImageSize {
  width: number;
  height: number;
}

export interface RenderOptions {
  /** Whether links are followed: an admin's are the site's own; a member's carry ugc nofollow. */
  followLinks: boolean;
  /**
   * Absolute bases that images may come from besides this site's `/uploads/` path: where this
   * site's image storage serves its files (the pages' CSP allows images from nowhere else).
   */
  imageBases: readonly string[];
  /**
   * The sizes of stored images the body may show, by image key: written on each as `width` and
   * `height`, so the page keeps their place before they load.
   */
  imageSizes?: ReadonlyMap<string, ImageSize>;
  /**
   * Whether code blocks in a known language are highlighted (the default). The render thread
   * renders a body again without it when highlighting did not finish within its budget.
   */
  highlight?: boolean;
}

export const EXCERPT_MAX = 200;
/** A common adult reading speed for prose on a screen. */
export const WORDS_PER_MINUTE = 230;

/** Renders a body as its format says; a Markdown body with a script in it is refused (400). */
export function renderBody(
  source: string,
  format: BodyFormat,
  options: RenderOptions,
): RenderedBody {
  return format === "plain" ? renderPlainBody(source) : renderMarkdownBody(source, options);
}

/** The posts-table columns of a rendered body: its format and its stored rendering. */
export const columnsOf = (rendered: RenderedBody, format: BodyFormat) => ({
  body_format: format,
  html: rendered.html,
  excerpt: rendered.excerpt,
  body_text: rendered.text,
  reading_minutes: rendered.readingMinutes,
});

/** The posts-table columns of a body: its format and its stored rendering. */
export const bodyColumns = (source: string, format: BodyFormat, options: RenderOptions) =>
  columnsOf(renderBody(source, format, options), format);

// --- Plain text: the posts written before Markdown ---------------------------------------------

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (char) => `&#${String(char.charCodeAt(0))};`);

/**
 * Exactly what the post page did with these bodies: a paragraph per run of blank lines, and every
 * other line break kept (the page set `white-space: pre-line`; a `<br>` now does that).
 */
export function renderPlainBody(source: string): RenderedBody {
  const html = source
    .split(/\n{2,}/)
    .map((paragraph) => `<p>${escapeHtml(paragraph).replace(/\r\n?|\n/g, "<br>\n")}</p>`)
    .join("\n");
  return summarize(source, html);
}

// --- Markdown ------------------------------------------------------------------------------------

/**
 * The part of highlight.js used here, typed by hand: its own types pull the DOM's into the whole
 * server program.
 */
interface Highlighter {
  registerLanguage(name: string, language: unknown): void;
  getLanguage(name: string): object | undefined;
  highlight(
    code: string,
    options: { language: string; ignoreIllegals: boolean },
  ): { value: string };
}

/** The languages code blocks are highlighted in (with their usual aliases: js, ts, py, sh, html…). */
const LANGUAGES = [
  "bash",
  "c",
  "cpp",
  "csharp",
  "css",
  "diff",
  "dockerfile",
  "go",
  "ini",
  "java",
  "javascript",
  "json",
  "kotlin",
  "markdown",
  "php",
  "plaintext",
  "python",
  "ruby",
  "rust",
  "shell",
  "sql",
  "swift",
  "typescript",
  "xml",
  "yaml",
];

// Loaded the first time a body is written, not at start-up: the parser, the highlighter and the
// sanitizer cost ~10 MB and 40 ms, and most requests read what was rendered when it was written.
const loadMarkdownIt = lazyModule<typeof MarkdownItFactory>("markdown-it");
const loadXss = lazyModule<typeof xssModule>("xss");
const MARKDOWN_PLUGINS = ["markdown-it-abbr", "markdown-it-deflist"];
const loadHighlighter = lazyModule<Highlighter>("highlight.js/lib/core");

let loadedTools: { md: MarkdownIt; hljs: Highlighter; sanitizer: xssModule.FilterXSS } | undefined;

function tools() {
  if (loadedTools) return loadedTools;
  const hljs = loadHighlighter();
  for (const name of LANGUAGES) {
    hljs.registerLanguage(name, lazyModule<unknown>(`highlight.js/lib/languages/${name}`)());
  }
  loadedTools = { hljs, md: createMarkdown(hljs), sanitizer: createSanitizer() };
  return loadedTools;
}

/** What rendering learns about a body, beside the HTML. */
type RenderEnv = {
  options: RenderOptions;
  /** Set when the body holds a script: a `<script>` tag, an on… handler, a javascript: link. */
  script?: boolean;
  /** The text a reader reads (no code), for the excerpt. */
  prose: string[];
  /** Every word, code included, for the reading time. */
  words: number;
  /** The stored images shown, by key. */
  images: Set<string>;
};

const SCRIPT_SCHEMES = new Set(["javascript", "vbscript"]);
/** Blanks and control characters, which browsers skip inside a URL's scheme. */
// eslint-disable-next-line no-control-regex -- matching them is the point
const BLANKS = /[\u0000-\u0020\u007f]/g;
const LINK_SCHEMES = new Set(["http", "https", "mailto"]);

/** A URL as a browser reads it: entities, escapes and blanks removed, lowercased. */
function browserView(url: string) {
  let decoded = tools().md.utils.unescapeAll(url);
  try {
    decoded = decodeURIComponent(decoded);
  } catch {
    // A stray % is no escape: the URL stays as it was.
  }
  return decoded.replace(BLANKS, "").toLowerCase();
}

type LinkKind = "script" | "web" | "relative" | "other";

function linkKind(url: string): LinkKind {
  const compact = browserView(url);
  const scheme = /^([a-z][a-z0-9+.-]*):/.exec(compact)?.[1];
  // `//host/path` leaves this site (and `\\host`, which browsers read the same, should a
  // renderer ever keep a backslash unescaped).
  if (scheme === undefined) return /^[/\\]{2}/.test(compact) ? "web" : "relative";
  if (SCRIPT_SCHEMES.has(scheme)) return "script";
  return LINK_SCHEMES.has(scheme) ? "web" : "other";
}

/** A stored file's key as storage makes them: no "..", no query, nothing odd. */
const IMAGE_KEY = /^[a-z0-9][a-z0-9/_.-]*$/i;

/**
 * A file of this site's image storage: `/uploads/<key>`, or `<base><key>` for one of the bases
 * it serves from. An image is fetched by every reader's browser, so it may point nowhere else.
 * Returns the base and the file's key, or undefined for any other address.
 */
function storedImageOf(src: string, imageBases: readonly string[]) {
  const base = ["/uploads/", ...imageBases].find((prefix) => src.startsWith(prefix));
  if (base === undefined) return undefined;
  const key = src.slice(base.length);
  return IMAGE_KEY.test(key) && !key.includes("..") ? { base, key } : undefined;
}

/** A variant of a stored image, `images/<id>/<variant>.webp`: the key scheme of core/media. */
const VARIANT_FILE = new RegExp(
  `^(images/[a-z0-9-]+)/(?:${IMAGE_VARIANTS.map(({ name }) => name).join("|")})\\.webp$`,
);

/** How wide a body image shows: the post column (860 px) or the whole width of a small screen. */
export const BODY_IMAGE_SIZES = "(max-width: 860px) 100vw, 860px";

/**
 * What lets a browser pick the width it needs of a stored image (the widths every image is
 * stored at, never enlarged: a small picture's are its own width) and keep its place: `srcset`,
 * `sizes`, and `width` and `height` when its size is known.
 */
function responsiveAttributes(base: string, fileKey: string, options: RenderOptions) {
  const imageKey = VARIANT_FILE.exec(fileKey)?.[1];
  if (imageKey === undefined) return { imageKey, attributes: "" };
  const size = options.imageSizes?.get(imageKey);
  const largest = size?.width ?? Infinity;
  const candidates = new Map<number, string>();
  for (const { name, width } of IMAGE_VARIANTS) {
    const shown = Math.min(width, largest);
    if (!candidates.has(shown)) candidates.set(shown, `${base}${imageKey}/${name}.webp`);
  }
  const srcset = [...candidates].map(([width, url]) => `${url} ${String(width)}w`).join(", ");
  const dimensions = size ? ` width="${String(size.width)}" height="${String(size.height)}"` : "";
  return {
    imageKey,
    attributes: ` srcset="${escapeHtml(srcset)}" sizes="${BODY_IMAGE_SIZES}"${dimensions}`,
  };
}

/**
 * Raw HTML in a body that would run script if it were ever shown as HTML: a script element, or
 * a tag with an on… handler or a javascript: URL. (Words in the text between tags are not tags.)
 */
function isScriptHtml(html: string) {
  const decoded = tools().md.utils.unescapeAll(html);
  if (/<\/?\s*script\b/i.test(decoded)) return true;
  return (decoded.match(/<[a-z][^>]*>?/gi) ?? []).some(
    (tag) =>
      /[\s/"']on[a-z]+\s*=/i.test(tag) || /(?:javascript|vbscript):/i.test(tag.replace(BLANKS, "")),
  );
}

const ruleEnv = (env: unknown) => env as RenderEnv;

/** An attribute of a token as text ("" when absent). */
const attr = (token: Token, name: string) => String(token.attrGet(name) ?? "");

/**
 * Walks the parsed body once: refuses scripts, unlinks links that go nowhere a browser should
 * follow, turns GFM task markers into checkboxes and table alignments into classes (the pages' CSP
 * allows no style attributes), and notes the prose and words.
 */
function inspect(state: StateCore) {
  const env = ruleEnv(state.env);
  state.tokens.forEach((token, index) => {
    if (token.type === "html_block") {
      if (isScriptHtml(token.content)) env.script = true;
      env.prose.push(token.content);
      env.words += countWords(token.content);
    }
    if (token.type === "fence" || token.type === "code_block") {
      env.words += countWords(token.content);
      return;
    }
    if (token.type === "th_open" || token.type === "td_open") {
      const align = /text-align:(left|center|right)/.exec(attr(token, "style"))?.[1];
      token.attrs = align ? [["class", `align-${align}`]] : null;
    }
    if (token.type === "inline") {
      if (
        state.tokens[index - 1]?.type === "paragraph_open" &&
        state.tokens[index - 2]?.type === "list_item_open"
      ) {
        markTask(state, index);
      }
      token.children = inspectInline(env, token.children ?? []);
    }
    if (token.type === "heading_close" || token.type === "paragraph_close")
      env.prose.push(BLOCK_END);
    else if (token.type.endsWith("_close") || token.type === "inline") env.prose.push(" ");
  });
}

/** Stands in the prose where a heading or a paragraph (a list item's too) ends. */
const BLOCK_END = "\u0000";

/** Text that ends a sentence already (closing quotes and brackets after it allowed). */
const SENTENCE_END = /[.!?:;…。！？]["'”’)\]]*$/u;

/**
 * The prose as one text, each block ended with a full stop where it has none and another follows,
 * so an excerpt reads "Why a CLI. Fast to start. Easy to script" rather than running them
 * together; the last block is left as written.
 */
function joinProse(prose: readonly string[]) {
  const blocks = prose
    .join("")
    .split(BLOCK_END)
    .map((block) => block.trim())
    .filter((block) => block !== "");
  return blocks
    .map((block, index) =>
      index === blocks.length - 1 || SENTENCE_END.test(block) ? block : `${block}.`,
    )
    .join(" ");
}

/** `<sub>` and `<sup>` as written, without attributes: the raw HTML a body may show (decision 010). */
const KEPT_TAG = /^<(\/?)(sub|sup)>$/i;

/**
 * Marks the `<sub>`/`<sup>` tags of one paragraph that open and close in order: those are shown as
 * sub- and superscript. Any other (unclosed, crossed) stays text like all raw HTML.
 */
function markKeptTags(children: readonly Token[]) {
  const open: { token: Token; name: string }[] = [];
  for (const child of children) {
    if (child.type !== "html_inline") continue;
    const match = KEPT_TAG.exec(child.content);
    if (!match) continue;
    const name = (match[2] ?? "").toLowerCase();
    if (match[1] === "") {
      open.push({ token: child, name });
      continue;
    }
    const last = open.at(-1);
    if (last?.name !== name) continue;
    open.pop();
    last.token.info = "kept";
    child.info = "kept";
  }
}

function inspectInline(env: RenderEnv, children: Token[]): Token[] {
  markKeptTags(children);
  const kept: Token[] = [];
  let droppedLink = false;
  for (const child of children) {
    switch (child.type) {
      case "html_inline":
        if (child.info === "kept") break;
        if (isScriptHtml(child.content)) env.script = true;
        env.prose.push(child.content);
        env.words += countWords(child.content);
        break;
      case "link_open": {
        const kind = linkKind(attr(child, "href"));
        if (kind === "script") env.script = true;
        if (kind === "script" || kind === "other") {
          droppedLink = true;
          continue;
        }
        if (kind === "web" && !env.options.followLinks) child.attrSet("rel", "ugc nofollow");
        break;
      }
      case "link_close":
        if (droppedLink) {
          droppedLink = false;
          continue;
        }
        break;
      case "image":
        if (linkKind(attr(child, "src")) === "script") env.script = true;
        break;
      case "text":
        env.prose.push(child.content);
        env.words += countWords(child.content);
        break;
      case "code_inline":
        env.prose.push(child.content);
        env.words += countWords(child.content);
        break;
      case "softbreak":
      case "hardbreak":
        env.prose.push(" ");
        break;
    }
    kept.push(child);
  }
  return kept;
}

const TASK_MARKER = /^\[([ xX])\](?=\s|$)/;

/** `- [ ] todo` and `- [x] done` (GFM task lists): a disabled checkbox labelled by the item. */
function markTask(state: StateCore, inlineIndex: number) {
  const inline = state.tokens[inlineIndex];
  const first = inline?.children?.[0];
  if (!inline?.children || first?.type !== "text") return;
  const marker = TASK_MARKER.exec(first.content);
  if (!marker) return;
  first.content = first.content.slice(marker[0].length).replace(/^\s+/, "");
  const checkbox = new state.Token("task_checkbox", "input", 0);
  checkbox.meta = { checked: marker[1] !== " " };
  inline.children.unshift(new state.Token("task_label_open", "label", 1), checkbox);
  inline.children.push(new state.Token("task_label_close", "label", -1));
  const item = state.tokens[inlineIndex - 2];
  item?.attrJoin("class", "task-list-item");
  for (let index = inlineIndex - 3; index >= 0; index -= 1) {
    const token = state.tokens[index];
    if (
      token &&
      (token.type === "bullet_list_open" || token.type === "ordered_list_open") &&
      token.level === (item?.level ?? 0) - 1
    ) {
      if (!attr(token, "class").includes("contains-task-list")) {
        token.attrJoin("class", "contains-task-list");
      }
      break;
    }
  }
}

/** Letters and digits of a heading, hyphenated; prefixed so no id can shadow a page's global. */
function slugify(text: string) {
  const words = text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]/gu, "")
    .trim()
    .replace(/\s+/g, "-");
  return `section-${words || "untitled"}`;
}

/** A code block, highlighted when `hljs` is given and knows its language; escaped otherwise. */
function highlighted(hljs: Highlighter | undefined, code: string, info: string) {
  const name = info.trim().split(/\s+/)[0]?.toLowerCase() ?? "";
  if (!hljs || !/^[a-z0-9+#_-]{1,30}$/.test(name) || !hljs.getLanguage(name)) {
    return { code: escapeHtml(code), language: undefined };
  }
  return {
    code: hljs.highlight(code, { language: name, ignoreIllegals: true }).value,
    language: name,
  };
}

/**
 * Gives every heading an id from its text (unique in the body: a repeated heading gets `-1`,
 * `-2`…) and makes its text a link to itself, unless it holds a link of its own (links do not
 * nest; its id still makes it an anchor). One pass, whatever the number of headings: the plugin
 * this replaces searched the tokens again after each heading and counted each repeat up from 1
 * (5,000 repeated headings took 5 s).
 */
function headingAnchors(state: StateCore) {
  const taken = new Set<string>();
  const nextSuffix = new Map<string, number>();
  state.tokens.forEach((token, index) => {
    const inline = state.tokens[index + 1];
    if (token.type !== "heading_open" || inline?.type !== "inline") return;
    const children = inline.children ?? [];
    const base = slugify(
      children
        .filter((child) => child.type === "text" || child.type === "code_inline")
        .map((child) => child.content)
        .join(""),
    );
    let slug = base;
    if (taken.has(slug)) {
      let suffix = nextSuffix.get(base) ?? 1;
      while (taken.has(`${base}-${String(suffix)}`)) suffix += 1;
      slug = `${base}-${String(suffix)}`;
      nextSuffix.set(base, suffix + 1);
    }
    taken.add(slug);
    token.attrSet("id", slug);
    if (children.some((child) => child.type === "link_open")) return;
    const open = new state.Token("link_open", "a", 1);
    open.attrs = [
      ["class", "header-anchor"],
      ["href", `#${slug}`],
    ];
    inline.children = [open, ...children, new state.Token("link_close", "a", -1)];
  });
}

function createMarkdown(hljs: Highlighter) {
  // `html` is on so raw HTML is recognised (and a script in it refused); every piece of it is
  // then written out as text, never as HTML.
  const md = loadMarkdownIt()("default", { html: true, linkify: true, breaks: true });
  // Every link is parsed as a link so `inspect` sees it: a javascript: one refuses the body, and
  // any other scheme is unlinked there (markdown-it alone would quietly leave it as text).
  md.validateLink = () => true;
  // What other platforms' HTML has and CommonMark lacks (imports keep it, decision 019).
  for (const plugin of MARKDOWN_PLUGINS) md.use(lazyModule<(md: MarkdownIt) => void>(plugin)());
  md.core.ruler.push("inspect", inspect);
  md.core.ruler.push("heading_anchors", headingAnchors);

  const rules = md.renderer.rules;
  const asText = (content: string) =>
    md.utils
      .escapeHtml(content)
      .replace(/\r\n?|\n/g, "<br>\n")
      .replace(/(<br>\n)+$/, "");
  rules.html_block = (tokens, index) => `<p>${asText(tokens[index]?.content ?? "")}</p>\n`;
  rules.html_inline = (tokens, index) => {
    const token = tokens[index];
    if (token?.info === "kept") return token.content.toLowerCase();
    return md.utils.escapeHtml(token?.content ?? "");
  };
  rules.fence = (tokens, index, _options, env) => {
    const token = tokens[index];
    const { code, language } = highlighted(
      ruleEnv(env).options.highlight === false ? undefined : hljs,
      token?.content ?? "",
      token?.info ?? "",
    );
    const className = language ? ` class="hljs language-${language}"` : "";
    // Focusable: a reader on a keyboard can scroll a long line into view.
    return `<pre tabindex="0"><code${className}>${code}</code></pre>\n`;
  };
  rules.code_block = (tokens, index) =>
    `<pre tabindex="0"><code>${escapeHtml(tokens[index]?.content ?? "")}</code></pre>\n`;
  rules.task_checkbox = (tokens, index) =>
    `<input type="checkbox" class="task-list-item-checkbox" disabled${
      (tokens[index]?.meta as { checked?: boolean } | undefined)?.checked ? " checked" : ""
    }> `;
  rules.task_label_open = () => "<label>";
  rules.task_label_close = () => "</label>";
  rules.image = (tokens, index, _options, env) => {
    const token = tokens[index];
    const src = token ? attr(token, "src") : "";
    const alt = md.utils.escapeHtml(
      token?.children ? md.renderer.renderInlineAsText(token.children, md.options, env) : "",
    );
    const { options, images } = ruleEnv(env);
    const stored = storedImageOf(src, options.imageBases);
    if (stored) {
      const title = token ? attr(token, "title") : "";
      const { imageKey, attributes } = responsiveAttributes(stored.base, stored.key, options);
      if (imageKey !== undefined) images.add(imageKey);
      return `<img src="${md.utils.escapeHtml(src)}" alt="${alt}"${
        title ? ` title="${md.utils.escapeHtml(title)}"` : ""
      }${attributes} loading="lazy" decoding="async">`;
    }
    // An image from elsewhere would be blocked by the CSP (and tell its host who reads): a link.
    if (linkKind(src) !== "web") return alt;
    const rel = options.followLinks ? "" : ' rel="ugc nofollow"';
    return `<a href="${md.utils.escapeHtml(src)}"${rel}>${alt || "image"}</a>`;
  };
  return md;
}

// --- The allow-list -------------------------------------------------------------------------------

const ALLOWED_TAGS: Record<string, string[]> = {
  h1: ["id"],
  h2: ["id"],
  h3: ["id"],
  h4: ["id"],
  h5: ["id"],
  h6: ["id"],
  p: [],
  br: [],
  hr: [],
  blockquote: [],
  ul: ["class"],
  ol: ["class", "start"],
  li: ["class"],
  strong: [],
  em: [],
  s: [],
  // `<sub>`/`<sup>` as written, abbreviations (`*[HTML]: …`), definition lists (decision 010).
  sub: [],
  sup: [],
  abbr: ["title"],
  dl: [],
  dt: [],
  dd: [],
  code: ["class"],
  pre: ["tabindex"],
  span: ["class"],
  table: [],
  thead: [],
  tbody: [],
  tr: [],
  th: ["class"],
  td: ["class"],
  a: ["href", "rel", "class", "title"],
  img: ["src", "alt", "title", "srcset", "sizes", "width", "height", "loading", "decoding"],
  label: [],
  input: ["type", "class", "disabled", "checked"],
};

function isImageSource(value: string) {
  return linkKind(value) !== "script" && /^(?:\/uploads\/|https?:\/\/)/i.test(value);
}

const CLASS_NAME =
  /^(?:hljs(?:-[a-z0-9_-]+)?|[a-z]+_|language-[a-z0-9+#_-]+|task-list-item(?:-checkbox)?|contains-task-list|align-(?:left|center|right)|header-anchor)$/;

const ATTRIBUTE_VALUES: Record<string, (value: string) => boolean> = {
  id: (value) => /^section-[\p{L}\p{N}-]+$/u.test(value),
  class: (value) => value.split(/\s+/).every((name) => CLASS_NAME.test(name)),
  start: (value) => /^\d{1,9}$/.test(value),
  tabindex: (value) => value === "0",
  rel: (value) => value === "ugc nofollow",
  type: (value) => value === "checkbox",
  disabled: (value) => value === "",
  checked: (value) => value === "",
  loading: (value) => value === "lazy",
  decoding: (value) => value === "async",
  href: (value) => ["web", "relative"].includes(linkKind(value)),
  src: isImageSource,
  srcset: (value) =>
    value.split(/,\s*/).every((candidate) => {
      const [url = "", width = "", ...rest] = candidate.split(/\s+/);
      return rest.length === 0 && isImageSource(url) && /^\d{1,5}w$/.test(width);
    }),
  sizes: (value) => value === BODY_IMAGE_SIZES,
  width: (value) => /^\d{1,5}$/.test(value),
  height: (value) => /^\d{1,5}$/.test(value),
  alt: () => true,
  title: () => true,
};

/**
 * The last wall: whatever the renderer wrote, only these tags and attributes (each value checked)
 * reach a page. Anything else is escaped into text, so a renderer bug shows rather than runs.
 */
function createSanitizer() {
  return new (loadXss().FilterXSS)({
    whiteList: ALLOWED_TAGS,
    stripBlankChar: true,
    onTagAttr: (_tag, name, value, isWhiteAttr) => {
      if (!isWhiteAttr) return "";
      const check = ATTRIBUTE_VALUES[name];
      if (!check?.(value)) return "";
      return value === "" ? name : `${name}="${value.replace(/["<>]/g, escapeHtml)}"`;
    },
  });
}

export function sanitize(html: string) {
  return tools().sanitizer.process(html);
}

export function renderMarkdownBody(source: string, options: RenderOptions): RenderedBody {
  const { md } = tools();
  const env: RenderEnv = { options, prose: [], words: 0, images: new Set() };
  const tokens = md.parse(source, env);
  if (env.script) {
    throw invalid(contentMessages.descriptionScript, {
      description: contentMessages.descriptionScript,
    });
  }
  const html = sanitize(md.renderer.render(tokens, md.options, env));
  const text = flatText(joinProse(env.prose));
  return {
    html,
    excerpt: excerptOf(text),
    text,
    readingMinutes: minutesFor(env.words),
    imageKeys: [...env.images],
  };
}

// --- Excerpt and reading time ---------------------------------------------------------------------

function countWords(text: string) {
  return text.match(/[\p{L}\p{N}]+(?:['’.-][\p{L}\p{N}]+)*/gu)?.length ?? 0;
}

const minutesFor = (words: number) => Math.max(1, Math.round(words / WORDS_PER_MINUTE));

/**
 * A body's stored HTML with this site's own addresses made absolute, as a mail or a feed reader
 * needs them (the sanitizer writes every attribute value in double quotes).
 */
export const withAbsoluteAddresses = (html: string, base: string) =>
  html
    // A path on this site, not a protocol-relative address (`//host/…`).
    .replace(/(\s(?:src|href|srcset)=")\/(?!\/)/g, `$1${base}/`)
    // A srcset's later candidates, inside its value alone.
    .replace(
      /(\ssrcset=")([^"]*)"/g,
      (_, attribute: string, value: string) =>
        `${attribute}${value.replace(/(,\s*)\/(?!\/)/g, `$1${base}/`)}"`,
    );

/** The text with every run of blanks one space. */
export const flatText = (text: string) => text.replace(/\s+/g, " ").trim();

/** The text, its blanks collapsed, cut at a word before EXCERPT_MAX with an ellipsis. */
export function excerptOf(text: string) {
  const flat = flatText(text);
  if (flat.length <= EXCERPT_MAX) return flat;
  // Never half of a character that takes two UTF-16 units.
  const cut = flat.slice(0, EXCERPT_MAX - 1).replace(/[\uD800-\uDBFF]$/, "");
  const atWord = cut.replace(/\s+\S*$/, "");
  return `${(atWord.length > EXCERPT_MAX / 2 ? atWord : cut).trimEnd()}…`;
}

function summarize(text: string, html: string): RenderedBody {
  return {
    html,
    excerpt: excerptOf(text),
    text: flatText(text),
    readingMinutes: minutesFor(countWords(text)),
    imageKeys: [],
  };
}
