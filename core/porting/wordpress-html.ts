import { decodeEntities } from "./html-to-markdown.js";

/**
 * What WordPress does to a post's stored HTML before showing it, done here before it becomes
 * Markdown: its shortcodes expanded (those with an equivalent) and its paragraphs made from blank
 * lines (wpautop). Whatever has no equivalent is named in the post's notes, never dropped silently.
 */

/** The elements wpautop treats as blocks: never wrapped in a paragraph. */
const BLOCKS =
  "(?:table|thead|tfoot|caption|col|colgroup|tbody|tr|td|th|div|dl|dd|dt|ul|ol|li|pre|form|map|area|blockquote|address|math|style|p|h[1-6]|hr|fieldset|legend|section|article|aside|hgroup|header|footer|nav|figure|figcaption|details|menu|summary)";
const BLOCK_OPEN = new RegExp(`(<${BLOCKS}[\\s/>])`, "gi");
const BLOCK_CLOSE = new RegExp(`(</${BLOCKS}>)`, "gi");
const P_AROUND_BLOCK = new RegExp(`<p>\\s*(</?${BLOCKS}[^<>]*>)\\s*</p>`, "gi");
const P_BEFORE_BLOCK = new RegExp(`<p>\\s*(</?${BLOCKS}[^<>]*>)`, "gi");
const P_AFTER_BLOCK = new RegExp(`(</?${BLOCKS}[^<>]*>)\\s*</p>`, "gi");
const BR_AFTER_BLOCK = new RegExp(`(</?${BLOCKS}[^<>]*>)\\s*<br />`, "gi");

/**
 * The HTML without the block editor's comments (`<!-- wp:... -->`, `<!-- /wp:... -->`), read in one
 * pass: a pattern with a lazy `[\s\S]*?-->` would scan to the end again from every unclosed one.
 */
function withoutBlockComments(html: string): string {
  const parts: string[] = [];
  let copiedUpTo = 0;
  let start = html.indexOf("<!--");
  while (start !== -1) {
    const end = html.indexOf("-->", start + 4);
    if (end === -1) break;
    if (/^<!--\s*\/?wp:/.test(html.slice(start, end))) {
      parts.push(html.slice(copiedUpTo, start));
      copiedUpTo = end + 3;
    }
    start = html.indexOf("<!--", end + 3);
  }
  parts.push(html.slice(copiedUpTo));
  return parts.join("");
}

/**
 * Replaces each span from an `open` match to the next `close` match (both global patterns), in one
 * pass: once no `close` follows, no later span can end either.
 */
function replaceSpans(
  text: string,
  open: RegExp,
  close: RegExp,
  replace: (span: string) => string,
): string {
  const parts: string[] = [];
  let copiedUpTo = 0;
  open.lastIndex = 0;
  for (let start = open.exec(text); start; start = open.exec(text)) {
    close.lastIndex = start.index + start[0].length;
    const end = close.exec(text);
    if (!end) break;
    const after = end.index + end[0].length;
    parts.push(text.slice(copiedUpTo, start.index), replace(text.slice(start.index, after)));
    copiedUpTo = after;
    open.lastIndex = after;
  }
  parts.push(text.slice(copiedUpTo));
  return parts.join("");
}

/**
 * WordPress's wpautop: blank lines make paragraphs and single line breaks `<br>`, around the block
 * elements already there. A classic-editor post is stored this way, often mixing both; the block
 * editor's comments (`<!-- wp:... -->`) are dropped first.
 */
export function autop(html: string): string {
  let text = withoutBlockComments(html).replace(/\r\n?/g, "\n");
  if (text.trim() === "") return "";
  const pres: string[] = [];
  text = replaceSpans(text, /<pre[\s>]/gi, /<\/pre>/gi, (pre) => {
    pres.push(pre);
    return `<pre data-kept="${String(pres.length - 1)}"></pre>`;
  });
  text = `${text}\n`
    .replace(/<br\s*\/?>\s*<br\s*\/?>/gi, "\n\n")
    .replace(BLOCK_OPEN, "\n\n$1")
    .replace(BLOCK_CLOSE, "$1\n\n")
    .replace(/(<hr\s*\/?>)/gi, "$1\n\n")
    // A line break inside a tag (between attributes) is not one of the text's.
    .replace(/<[^<>]*>/g, (tag) => tag.replace(/\n/g, " "))
    .replace(/(?<!\s)\s*(<figcaption[^<>]*>)/gi, "$1")
    .replace(/<\/figcaption>\s*/gi, "</figcaption>")
    .replace(/\n\n+/g, "\n\n");
  text = text
    .split(/\n\s*\n/)
    .filter((chunk) => chunk.trim() !== "")
    .map((chunk) => `<p>${chunk.replace(/^\n+|\n+$/g, "")}</p>\n`)
    .join("")
    .replace(/<p>\s*<\/p>/g, "")
    .replace(/<p>([^<]+)<\/(div|address|form)>/gi, "<p>$1</p></$2>")
    .replace(P_AROUND_BLOCK, "$1")
    .replace(/<p>(<li(?:(?!<p>).)*?)<\/p>/gi, "$1")
    .replace(/<p><blockquote([^<>]*)>/gi, "<blockquote$1><p>")
    .replace(/<\/blockquote><\/p>/gi, "</p></blockquote>")
    .replace(P_BEFORE_BLOCK, "$1")
    .replace(P_AFTER_BLOCK, "$1")
    .replace(/<br\s*\/?>/gi, "<br />")
    .replace(/(?<!<br \/>)(?<!\s)\s*\n/g, "<br />\n")
    .replace(BR_AFTER_BLOCK, "$1")
    .replace(/<br \/>(\s*<\/?(?:p|li|div|dl|dd|dt|th|pre|td|ul|ol)[^<>]*>)/gi, "$1")
    .replace(/\n<\/p>$/, "</p>");
  return text.replace(/<pre data-kept="(\d+)"><\/pre>/g, (_whole, index: string) => {
    return pres[Number(index)] ?? "";
  });
}

/** A shortcode's attributes: `name="value"`, `name='value'`, `name=value` and bare values. */
function attributesOf(text: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  const pattern = /([\w-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s'"\]]+))|"([^"]*)"|(\S+)/g;
  let position = 0;
  for (const match of text.matchAll(pattern)) {
    if (match[1] !== undefined)
      attributes[match[1].toLowerCase()] = match[2] ?? match[3] ?? match[4] ?? "";
    else attributes[String(position++)] = match[5] ?? match[6] ?? "";
  }
  return attributes;
}

const escapeAttribute = (value: string) =>
  value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");

/** The attachments of the export, for galleries and playlists: by id, and by parent post. */
export interface Attachment {
  id: string;
  parent: string;
  url: string;
  title: string;
  alt: string;
}

/** Shortcodes WordPress itself registers, each turned into what it shows. */
const MEDIA = new Set(["audio", "video", "playlist"]);

/**
 * The post's shortcodes as HTML: `[caption]` a figure with its caption, `[gallery]` its images,
 * `[audio]`, `[video]` and `[playlist]` links to their files, `[embed]` a link. Any other
 * shortcode (a plugin's) stays as text and is named in `notes`.
 */
export function expandShortcodes(
  html: string,
  context: { postId: string; attachments: readonly Attachment[] },
  notes: string[],
): string {
  const byId = new Map(context.attachments.map((attachment) => [attachment.id, attachment]));
  const figure = (attachments: Attachment[]) =>
    attachments
      .map(
        (attachment) =>
          `<p><img src="${escapeAttribute(attachment.url)}" alt="${escapeAttribute(attachment.alt || attachment.title)}"></p>`,
      )
      .join("\n");
  const mediaLink = (url: string) => {
    // Exports escape the quotes around it as `\"`: the backslash is not part of the address.
    const clean = url.replace(/\\+$/, "").trim();
    const file = clean.split(/[?#]/)[0]?.split("/").pop() ?? clean;
    let name = file;
    try {
      name = decodeURIComponent(file);
    } catch {
      // A stray % in the address: its name as written.
    }
    return `<p><a href="${escapeAttribute(clean)}">${escapeAttribute(name || clean)}</a></p>`;
  };
  const unknown = new Set<string>();

  const expanded = html.replace(
    /\[(\[?)([a-z_][\w-]*)((?:\s[^\][]*)?)\](?:((?:(?!\[\/?[a-z_])[\s\S])*?)\[\/\2\])?(\]?)/gi,
    (whole, open: string, rawName: string, rawAttributes: string, content = "", close: string) => {
      // `[[name]]` is WordPress's way to write a shortcode as text.
      if (open === "[" && close === "]") return whole.slice(1, -1);
      const name = rawName.toLowerCase();
      const attributes = attributesOf(rawAttributes);
      const body = String(content);
      switch (name) {
        case "caption":
        case "wp_caption": {
          const image = /^\s*((?:<a\s[^>]*>\s*)?<img\s[^>]*>(?:\s*<\/a>)?)([\s\S]*)$/i.exec(body);
          const caption = (attributes.caption ?? image?.[2] ?? "").trim();
          return `<figure>${image?.[1] ?? body}${caption ? `<figcaption>${caption}</figcaption>` : ""}</figure>`;
        }
        case "gallery": {
          const ids = (attributes.ids ?? attributes.include ?? "")
            .split(",")
            .map((id) => id.trim())
            .filter(Boolean);
          const images =
            ids.length > 0
              ? ids.map((id) => byId.get(id)).filter((found) => found !== undefined)
              : context.attachments.filter((attachment) => attachment.parent === context.postId);
          if (images.length < ids.length)
            notes.push(
              `a gallery names ${String(ids.length - images.length)} image(s) the export does not have`,
            );
          else if (images.length === 0)
            notes.push("a gallery without images in the export was left out");
          return figure(images);
        }
        case "embed":
          return body.trim() === "" ? "" : mediaLink(body.trim());
        default:
          break;
      }
      if (MEDIA.has(name)) {
        if (name === "playlist") {
          const ids = (attributes.ids ?? "").split(",").map((id) => id.trim());
          return ids
            .map((id) => byId.get(id))
            .filter((found) => found !== undefined)
            .map((attachment) => mediaLink(attachment.url))
            .join("\n");
        }
        const source =
          attributes.src ??
          Object.entries(attributes).find(([key]) =>
            /^(mp3|m4a|ogg|wav|wma|flac|mp4|m4v|webm|ogv|wmv|flv|mov)$/.test(key),
          )?.[1] ??
          body.trim();
        if (source) return mediaLink(source);
        notes.push(`an [${name}] without a file was left out`);
        return "";
      }
      // Only what looks like a shortcode (attributes or a closing tag) is one: "[1]" is text.
      if (/=/.test(rawAttributes) || content !== "") unknown.add(name);
      return whole;
    },
  );
  for (const name of unknown)
    notes.push(`the shortcode [${name}] has no equivalent here and was kept as text`);
  return expanded;
}

/** A title WordPress allows HTML in (`Title <em>With</em> Markup`): its text. */
export function textOfHtml(html: string): string {
  return decodeEntities(html.replace(/<[^<>]*>/g, ""))
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * A comment's HTML as the plain text comments are here: paragraphs and line breaks kept, a link's
 * address after its text, an image by its description and address; other tags dropped.
 */
export function commentText(html: string): string {
  const text = autop(html)
    .replace(
      /<a\s[^<>]*?href\s*=\s*["']([^"'<>]*)["'][^<>]*>((?:(?!<a\s)[\s\S])*?)<\/a>/gi,
      (_whole, href: string, label: string) => {
        const shown = textOfHtml(label);
        const address = decodeEntities(href);
        return shown === "" || shown === address ? address : `${shown} (${address})`;
      },
    )
    .replace(/<img\s[^<>]*>/gi, (tag) => {
      const src = /\ssrc\s*=\s*["']([^"']*)["']/i.exec(tag)?.[1] ?? "";
      const alt = /\salt\s*=\s*["']([^"']*)["']/i.exec(tag)?.[1] ?? "";
      return [alt, src].filter(Boolean).join(" ");
    })
    .replace(/<br\s*\/?>\s*/gi, "\n")
    .replace(/<\/(p|blockquote|li|h[1-6]|pre|div)>\s*/gi, "\n\n")
    .replace(/<[^<>]*>/g, "");
  return decodeEntities(text)
    .replace(/(?<![ \t])[ \t]+\n/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
