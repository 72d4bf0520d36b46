/** The editor's toolbar marks, as edits of the text: pure, so they are tested without a browser. */

export type Mark = "bold" | "italic" | "heading" | "link" | "quote" | "code" | "list";

/** A text and its selection (a caret when start equals end). */
export interface Selected {
  value: string;
  start: number;
  end: number;
}

/** Replace `from`..`to` with `insert`, then select `start`..`end` of the new text. */
export interface Edit {
  from: number;
  to: number;
  insert: string;
  start: number;
  end: number;
}

/** What a mark writes when nothing is selected, selected so typing replaces it. */
const PLACEHOLDERS = {
  bold: "bold text",
  italic: "italic text",
  code: "code",
  link: "link text",
  url: "https://",
} as const;

const LINE_PREFIXES = { heading: "## ", quote: "> ", list: "- " } as const;

/** Wraps the selection in `marker` (or unwraps it when it is wrapped already). */
function wrap({ value, start, end }: Selected, marker: string, placeholder: string): Edit {
  const size = marker.length;
  if (
    value.slice(start - size, start) === marker &&
    value.slice(end, end + size) === marker &&
    end - start > 0
  ) {
    return {
      from: start - size,
      to: end + size,
      insert: value.slice(start, end),
      start: start - size,
      end: end - size,
    };
  }
  const selected = value.slice(start, end);
  // Blanks at the edges stay outside the marks: `** bold**` is not bold in Markdown.
  const lead = /^\s*/.exec(selected)?.[0] ?? "";
  const trail = selected.trimStart() === "" ? "" : (/\s*$/.exec(selected)?.[0] ?? "");
  const inner = selected.slice(lead.length, selected.length - trail.length) || placeholder;
  const from = start + lead.length;
  return {
    from,
    to: end - trail.length,
    insert: `${marker}${inner}${marker}`,
    start: from + size,
    end: from + size + inner.length,
  };
}

/** A link around the selection; a selected address becomes the link's target instead. */
function link({ value, start, end }: Selected): Edit {
  const selected = value.slice(start, end);
  if (/^https?:\/\/\S+$/.test(selected.trim())) {
    const insert = `[${PLACEHOLDERS.link}](${selected.trim()})`;
    return {
      from: start,
      to: end,
      insert,
      start: start + 1,
      end: start + 1 + PLACEHOLDERS.link.length,
    };
  }
  const text = selected || PLACEHOLDERS.link;
  const insert = `[${text}](${PLACEHOLDERS.url})`;
  const urlStart = start + text.length + 3;
  return { from: start, to: end, insert, start: urlStart, end: urlStart + PLACEHOLDERS.url.length };
}

/** Code: inline for a part of a line, a fenced block for whole lines. */
function code(selected: Selected): Edit {
  const { value, start, end } = selected;
  const text = value.slice(start, end);
  if (!text.includes("\n")) return wrap(selected, "`", PLACEHOLDERS.code);
  const before = start > 0 && value[start - 1] !== "\n" ? "\n" : "";
  const body = text.endsWith("\n") ? text : `${text}\n`;
  const insert = `${before}\`\`\`\n${body}\`\`\`\n`;
  const bodyStart = start + before.length + 4;
  return { from: start, to: end, insert, start: bodyStart, end: bodyStart + body.length - 1 };
}

/**
 * Puts a prefix before every line the selection touches (`## `, `> `, `- `), or takes it away
 * when every written line has it already. A heading replaces another level's hashes.
 */
function prefixLines({ value, start, end }: Selected, prefix: string): Edit {
  const from = value.lastIndexOf("\n", start - 1) + 1;
  const lineEnd = value.indexOf("\n", end > start && value[end - 1] === "\n" ? end - 1 : end);
  const to = lineEnd === -1 ? value.length : lineEnd;
  const lines = value.slice(from, to).split("\n");
  const strip = (line: string) =>
    prefix === LINE_PREFIXES.heading ? line.replace(/^#{1,6} /, "") : line;
  const written = lines.filter((line) => line.trim() !== "");
  const remove = written.length > 0 && written.every((line) => line.startsWith(prefix));
  const changed = lines.map((line) => {
    if (remove) return line.startsWith(prefix) ? line.slice(prefix.length) : line;
    return line.trim() === "" && lines.length > 1 ? line : `${prefix}${strip(line)}`;
  });
  const insert = changed.join("\n");
  if (lines.length === 1 && start === end) {
    const caret = Math.max(from, start + insert.length - (to - from));
    return { from, to, insert, start: caret, end: caret };
  }
  return { from, to, insert, start: from, end: from + insert.length };
}

/** The edit a toolbar button or shortcut makes to the text and its selection. */
export function markEdit(mark: Mark, selected: Selected): Edit {
  switch (mark) {
    case "bold":
      return wrap(selected, "**", PLACEHOLDERS.bold);
    case "italic":
      return wrap(selected, "_", PLACEHOLDERS.italic);
    case "code":
      return code(selected);
    case "link":
      return link(selected);
    case "heading":
    case "quote":
    case "list":
      return prefixLines(selected, LINE_PREFIXES[mark]);
  }
}

/** Applies an edit to a text (what the browser does in the textarea). */
export function applyEdit(value: string, edit: Edit): Selected {
  return {
    value: value.slice(0, edit.from) + edit.insert + value.slice(edit.to),
    start: edit.start,
    end: edit.end,
  };
}

/**
 * A description as Markdown's image text: on one line, its brackets and backslashes taken
 * literally.
 */
const escapeAlt = (alt: string) =>
  alt
    .replace(/\s+/g, " ")
    .trim()
    .replace(/[\\[\]]/g, (found) => `\\${found}`);

/** The Markdown of an uploaded image, as it goes in at the cursor (its description comes next). */
export const imageMarkdown = (url: string, alt = "") => `![${escapeAlt(alt)}](${url})`;

/** The addresses of the images in `text` written with no description (`![](url)`), in order. */
export const undescribedImages = (text: string) =>
  [...text.matchAll(/!\[\]\((\S+?)\)/g)].map((found) => found[1] ?? "");

/**
 * The edit that gives the first undescribed image at `url` its description, or undefined when the
 * text has none there any more (the writer removed or described it meanwhile).
 */
export function describeImageEdit(text: string, url: string, alt: string): Edit | undefined {
  const plain = imageMarkdown(url);
  const from = text.indexOf(plain);
  if (from === -1) return undefined;
  const insert = imageMarkdown(url, alt);
  const end = from + insert.length;
  return { from, to: from + plain.length, insert, start: end, end };
}
