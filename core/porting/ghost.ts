import { z } from "zod";
import { IMAGE_ALT_MAX, POST_DESCRIPTION_MAX } from "../../contract/limits.js";
import {
  budgetSpent,
  IMPORT_SOURCE_MAX,
  isoTime,
  SourceRefused,
  type ForeignBlog,
  type ForeignPage,
  type ForeignPost,
  type ReadLimits,
} from "./foreign.js";
import { ghostNavigation } from "./ghost-navigation.js";
import markdownItFactory, { type MarkdownIt } from "markdown-it";
import { decodeEntities, escapeMarkdown, htmlToMarkdown, isSafeHref } from "./html-to-markdown.js";

/**
 * Ghost's JSON export (Settings > Advanced > Import/Export > Export content): `db[0].data` holds
 * the tables posts (pages among them), tags, posts_tags, users, posts_authors and settings (its
 * navigation) (0.x files have them at the top, some tools wrap them as `data.data`). Each row is
 * read on its own: one that cannot be is reported and the rest imported. A post's or page's body
 * is its `html` when the export has it, else its Lexical (Ghost 5), mobiledoc (Ghost 1-4) or
 * Markdown (Ghost 0.x) source.
 */
const text = z.string().nullish();
const id = z.union([z.string().min(1), z.number()]).transform(String);
const PostRow = z.looseObject({
  id,
  title: text,
  slug: text,
  html: text,
  lexical: text,
  mobiledoc: text,
  markdown: text,
  feature_image: text,
  // Ghost 0.x's name for it.
  image: text,
  type: text,
  page: z.unknown().optional(),
  featured: z.unknown().optional(),
  status: text,
  visibility: text,
  // Where Ghost 1-4 keep what describes a page (meta_description moved to posts_meta in 5).
  meta_description: text,
  custom_excerpt: text,
  created_at: z.unknown().optional(),
  updated_at: z.unknown().optional(),
  published_at: z.unknown().optional(),
  author_id: z.union([z.string(), z.number()]).nullish(),
});
const TagRow = z.looseObject({ id, name: z.string() });
const PostTagRow = z.looseObject({
  post_id: id,
  tag_id: id,
  sort_order: z.number().nullish(),
});
const UserRow = z.looseObject({ id, name: text, slug: text, email: text, bio: text });
// Ghost 5 keeps a feature image's alt text here, and a page's meta description.
const PostMetaRow = z.looseObject({ post_id: id, feature_image_alt: text, meta_description: text });
const PostAuthorRow = z.looseObject({
  post_id: id,
  author_id: id,
  sort_order: z.number().nullish(),
});

/** The database part of the export, wherever this file keeps it, and what to call that place. */
function databaseOf(json: unknown): { data: Record<string, unknown>; where: string } | undefined {
  const top = recordOf(json);
  const inDb = Array.isArray(top?.db) ? recordOf(recordOf(top.db[0])?.data) : undefined;
  if (inDb) return { data: inDb, where: "db[0].data" };
  const wrapped = recordOf(recordOf(top?.data)?.data);
  if (wrapped) return { data: wrapped, where: "data.data" };
  const plain = recordOf(top?.data);
  return plain ? { data: plain, where: "data" } : undefined;
}

const recordOf = (value: unknown) =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;

/** The rows of one table that can be read; each other row is reported by its place and why. */
function rowsOf<T>(
  database: Record<string, unknown>,
  table: string,
  schema: z.ZodType<T>,
  skipped: ForeignBlog["skipped"],
): T[] {
  const rows = database[table];
  if (rows === undefined || rows === null) return [];
  if (!Array.isArray(rows)) {
    skipped.push({ item: `the ${table} table`, reason: "it is not a list of rows" });
    return [];
  }
  const read: T[] = [];
  rows.forEach((row: unknown, index) => {
    const parsed = schema.safeParse(row);
    if (parsed.success) {
      read.push(parsed.data);
      return;
    }
    const named = (row as { slug?: unknown; name?: unknown; title?: unknown } | null) ?? {};
    const label = [named.slug, named.name, named.title].find(
      (value): value is string => typeof value === "string",
    );
    const fields = [...new Set(parsed.error.issues.map((issue) => issue.path.join(".")))];
    skipped.push({
      item: `${table} row ${String(index + 1)}${label ? ` (${label})` : ""}`,
      reason:
        fields.length > 0 && fields[0] !== ""
          ? `its ${fields.join(", ")} ${fields.length > 1 ? "are" : "is"} missing or unusable`
          : "it is not a row of fields",
    });
  });
  return read;
}

/** Who a Ghost post is for when not everyone: its `visibility`. */
const AUDIENCES: Record<string, string> = {
  members: "members only",
  paid: "paid members only",
  tiers: "members of some tiers only",
};

/** Why a post is not on the Ghost site for everyone, or null when it is (or is a plain draft). */
function hiddenOnGhost(post: { status?: string | null; visibility?: string | null }) {
  const visibility = post.visibility ?? "public";
  if (visibility !== "public") return AUDIENCES[visibility] ?? `visible to ${visibility} only`;
  if (post.status === "published" || post.status === "draft") return null;
  if (post.status === "scheduled") return "scheduled";
  // A newsletter sent without being published on the site.
  if (post.status === "sent") return "sent by e-mail only";
  return `its status is ${post.status ?? "unknown"}`;
}

/** How many characters of bodies an import has converted, and its most. */
interface Budget {
  converted: number;
  max: number;
}

/**
 * A post's or page's body as Markdown, or undefined when it is too long, past the budget or
 * unreadable (then reported as `item`).
 */
function convertedBody(
  post: z.infer<typeof PostRow>,
  kind: "post" | "page",
  ref: string,
  budget: Budget,
  skipped: ForeignBlog["skipped"],
  notes: string[],
): string | undefined {
  const item = `${kind} ${ref}`;
  const source = [post.html, post.lexical, post.mobiledoc, post.markdown].find((body) =>
    body?.trim(),
  );
  // HTML of ten times what a post may have as Markdown cannot fit (JSON documents are wordier).
  const most = source === post.html ? 10 * POST_DESCRIPTION_MAX : 50 * POST_DESCRIPTION_MAX;
  if (source && source.length > most) {
    skipped.push({
      item,
      reason: `its body is ${String(source.length)} characters in the export; ${kind}s may have ${String(POST_DESCRIPTION_MAX)} as Markdown`,
    });
    return undefined;
  }
  if (budget.converted + (source?.length ?? 0) > budget.max) {
    skipped.push({ item, reason: budgetSpent(budget.max) });
    return undefined;
  }
  budget.converted += source?.length ?? 0;
  try {
    return bodyOf(post, notes);
  } catch (error) {
    skipped.push({
      item,
      reason:
        error instanceof SyntaxError
          ? "its Lexical or mobiledoc document is not JSON"
          : `its body could not be read (${(error as Error).message})`,
    });
    return undefined;
  }
}

const byOrder = (a: { sort_order?: number | null }, b: { sort_order?: number | null }) =>
  (a.sort_order ?? 0) - (b.sort_order ?? 0);

/**
 * A post's category and tags: Ghost's primary tag is the post's first; internal tags (#...) are
 * not categories (named in `notes`).
 */
function tagsOf(
  postId: string,
  links: readonly z.infer<typeof PostTagRow>[],
  tagNames: ReadonlyMap<string, string>,
  notes: string[],
) {
  const names = links
    .filter((link) => link.post_id === postId)
    .sort(byOrder)
    .map((link) => tagNames.get(link.tag_id))
    .filter((name) => name !== undefined);
  const internal = names.filter((name) => name.startsWith("#"));
  const [primaryTag = null, ...otherTags] = names.filter((name) => !name.startsWith("#"));
  if (internal.length > 0)
    notes.push(`internal tag(s) ${internal.join(", ")} not kept (they have no meaning here)`);
  return { primaryTag, otherTags };
}

export function readGhostExport(source: string, limits: ReadLimits = {}): ForeignBlog {
  const budget: Budget = { converted: 0, max: limits.sourceMax ?? IMPORT_SOURCE_MAX };
  let json: unknown;
  try {
    json = JSON.parse(source);
  } catch (error) {
    throw new SourceRefused(
      `The Ghost export is not valid JSON (${(error as Error).message}). Nothing was imported.`,
    );
  }
  const database = databaseOf(json);
  if (!database || !Array.isArray(database.data.posts)) {
    throw new SourceRefused(
      `This is not a Ghost JSON export: ${database?.where ?? "db[0].data"}.posts, the list of posts, is not there. Nothing was imported.`,
    );
  }
  const skipped: ForeignBlog["skipped"] = [];
  const table = <T>(name: string, schema: z.ZodType<T>) =>
    rowsOf(database.data, name, schema, skipped);
  const posts = table("posts", PostRow);
  const tags = table("tags", TagRow);
  const posts_tags = table("posts_tags", PostTagRow);
  const users = table("users", UserRow);
  const posts_meta = table("posts_meta", PostMetaRow);
  const posts_authors = table("posts_authors", PostAuthorRow);
  const metaOf = new Map(posts_meta.map((meta) => [meta.post_id, meta]));
  const tagNames = new Map(tags.map((tag) => [tag.id, tag.name]));
  const foreignPosts: ForeignPost[] = [];
  const foreignPages: ForeignPage[] = [];

  for (const post of posts) {
    const ref = post.slug ?? post.id;
    const isPage = (post.type ?? "post") === "page" || post.page === true || post.page === 1;
    const kind = isPage ? "page" : (post.type ?? "post");
    if (kind !== "post" && kind !== "page") {
      skipped.push({ item: `${kind} ${ref}`, reason: "only posts and pages are imported" });
      continue;
    }
    const createdAt =
      isoTime(post.created_at) ?? isoTime(post.published_at) ?? isoTime(post.updated_at);
    if (!createdAt) {
      skipped.push({ item: `${kind} ${ref}`, reason: "it has no creation time" });
      continue;
    }
    const notes: string[] = [];
    const { primaryTag, otherTags } = isPage
      ? { primaryTag: null, otherTags: [] }
      : tagsOf(post.id, posts_tags, tagNames, notes);
    if (!isPage && (post.featured === true || post.featured === 1))
      notes.push(
        "was featured on Ghost; this site has no featured posts, it is listed by its date",
      );
    const markdown = convertedBody(post, kind, ref, budget, skipped, notes);
    if (markdown === undefined) continue;
    const meta = metaOf.get(post.id);
    const common = {
      ref,
      title: post.title ?? "",
      markdown,
      status: post.status === "published" ? ("published" as const) : ("draft" as const),
      hiddenBecause: hiddenOnGhost(post),
      publishedAt: isoTime(post.published_at) ?? null,
      createdAt,
      updatedAt: isoTime(post.updated_at) ?? createdAt,
      authorRef:
        posts_authors.filter((link) => link.post_id === post.id).sort(byOrder)[0]?.author_id ??
        (post.author_id == null ? "" : String(post.author_id)),
      notes,
    };
    if (isPage) {
      const description = [meta?.meta_description, post.meta_description, post.custom_excerpt]
        .map((value) => value?.trim())
        .find(Boolean);
      foreignPages.push({
        ...common,
        slug: post.slug ?? "",
        metaDescription: description ?? null,
      });
      continue;
    }
    foreignPosts.push({
      ...common,
      category: primaryTag,
      tags: otherTags,
      featureImage: post.feature_image ?? post.image ?? null,
      featureImageAlt: meta?.feature_image_alt?.trim().slice(0, IMAGE_ALT_MAX) || null,
      comments: [],
    });
  }
  const navigation = ghostNavigation(database.data, skipped);
  return {
    source: "Ghost",
    authors: users.map((user) => ({
      ref: user.id,
      name: user.name ?? user.slug ?? "author",
      email: user.email ?? "",
      bio: user.bio ?? "",
    })),
    posts: foreignPosts,
    pages: foreignPages,
    ...(navigation ? { navigation } : {}),
    skipped,
  };
}

function bodyOf(
  post: {
    html?: string | null;
    lexical?: string | null;
    mobiledoc?: string | null;
    markdown?: string | null;
  },
  notes: string[],
) {
  let markdown = "";
  if (post.html?.trim()) markdown = htmlToMarkdown(post.html);
  else if (post.lexical?.trim())
    markdown = lexicalToMarkdown(JSON.parse(post.lexical) as unknown, notes);
  else if (post.mobiledoc?.trim())
    markdown = mobiledocToMarkdown(JSON.parse(post.mobiledoc) as unknown, notes);
  else if (post.markdown?.trim()) markdown = safeMarkdown(post.markdown, notes);
  // Ghost writes its own address in links as this placeholder: they become paths here (the
  // writer leads those to imported posts to them). Images keep it until they are looked up.
  return markdown.replace(
    /(!?)\[([^\]]*)\]\(__GHOST_URL__(\/[^)\s]*)/g,
    (whole, bang: string, label: string, path: string) =>
      bang === "!" ? whole : `[${label}](${path}`,
  );
}

/** Markdown the writer gave (a card, a 0.x post), without what would run as script. */
function safeMarkdown(markdown: string, notes: string[]) {
  // Read as a browser would: references decoded, and blanks and escapes in a scheme ignored.
  const decoded = decodeEntities(markdown);
  const squeezed = decoded.replace(/%[0-9a-f]{2}|[\s\p{Cc}]/giu, "");
  if (!SCRIPT_TAG.test(decoded) && !SCRIPT_LINK.test(squeezed)) return markdown;
  notes.push("a script in the post was left out (the rest of it kept)");
  // As Ghost shows it (Markdown to HTML), then back with the script dropped.
  return htmlToMarkdown(markdownToHtml(markdown));
}

/** A script element, or a tag with an `on…` handler. */
const SCRIPT_TAG = /<\s*\/?\s*script\b|<[a-z][^>]*\son[a-z]+\s*=/i;
/** A link, an autolink, a reference or an attribute to a script address. */
const SCRIPT_LINK = /(?:\]\(<?|\]:<?|=["']?|<)(?:javascript|vbscript):/i;

let markdownIt: MarkdownIt | undefined;
function markdownToHtml(markdown: string) {
  if (!markdownIt) {
    markdownIt = markdownItFactory({ html: true });
    // Every link a link, so the way back drops the unsafe ones to their text (not `[x](…)`).
    markdownIt.validateLink = () => true;
  }
  return markdownIt.render(markdown);
}

interface LexicalNode {
  type?: string;
  text?: string;
  format?: number | string;
  tag?: string;
  listType?: string;
  url?: string;
  src?: string;
  alt?: string;
  altText?: string;
  title?: string;
  caption?: string;
  markdown?: string;
  html?: string;
  code?: string;
  language?: string;
  calloutText?: string;
  calloutEmoji?: string;
  heading?: string;
  content?: string;
  buttonText?: string;
  buttonUrl?: string;
  images?: LexicalNode[];
  fileName?: string;
  fileTitle?: string;
  metadata?: { title?: string; description?: string };
  children?: LexicalNode[];
}

/** A link, or its text alone when its address is none a page could follow (javascript:...). */
const linked = (label: string, url: string) =>
  isSafeHref(url) && url !== "" ? `[${label}](${url})` : label;

/** Emphasis around text, its outer spaces kept outside (`* word*` is no emphasis in Markdown). */
function wrapped(value: string, start: string, end = start) {
  const match = /^(\s*)([\s\S]*?)(\s*)$/.exec(value);
  if (!match?.[2]) return value;
  return `${match[1] ?? ""}${start}${match[2]}${end}${match[3] ?? ""}`;
}

/**
 * Ghost 5's Lexical document: Lexical's nodes and Ghost's own (`extended-text`, `extended-heading`,
 * `extended-quote`) and cards; a card with no equivalent here is named in `notes`.
 */
export function lexicalToMarkdown(document: unknown, notes: string[] = []): string {
  const root = (document as { root?: LexicalNode } | null)?.root;
  return (root?.children ?? [])
    .map((node) => lexicalBlock(node, notes))
    .filter(Boolean)
    .join("\n\n")
    .trim();
}

/**
 * Deeper than any editor nests (a link in a list item in a list...): a document that goes further
 * is refused as that post's line in the report, before the recursion that reads it could overflow.
 */
const LEXICAL_DEPTH_MAX = 32;

function nestingChecked(depth: number) {
  if (depth > LEXICAL_DEPTH_MAX)
    throw new Error(`its document nests deeper than ${String(LEXICAL_DEPTH_MAX)} levels`);
}

function lexicalInline(nodes: LexicalNode[] = [], depth = 0): string {
  nestingChecked(depth);
  return nodes
    .map((node) => {
      if (node.type === "linebreak") return "  \n";
      if (node.type === "link" || node.type === "autolink")
        return linked(lexicalInline(node.children, depth + 1), node.url ?? "");
      if (node.children) return lexicalInline(node.children, depth + 1);
      const format = typeof node.format === "number" ? node.format : 0;
      // Lexical's format bits: 1 bold, 2 italic, 4 strike-through, 16 code, 32 sub, 64 super.
      if (format & 16) return wrapped(node.text ?? "", "`");
      let value = escapeMarkdown(node.text ?? "");
      if (format & 32) value = wrapped(value, "<sub>", "</sub>");
      if (format & 64) value = wrapped(value, "<sup>", "</sup>");
      if (format & 4) value = wrapped(value, "~~");
      if (format & 2) value = wrapped(value, "*");
      if (format & 1) value = wrapped(value, "**");
      return value;
    })
    .join("");
}

const captionOf = (caption: string | undefined) =>
  caption?.trim() ? `\n\n*${htmlToMarkdown(caption)}*` : "";

function lexicalList(node: LexicalNode, depth: number): string {
  nestingChecked(depth);
  const ordered = node.listType === "number";
  let number = 0;
  return (node.children ?? [])
    .map((item) => {
      const nested = (item.children ?? []).filter((child) => child.type === "list");
      const inline = lexicalInline((item.children ?? []).filter((child) => child.type !== "list"));
      const lines = nested.map((list) => lexicalList(list, depth + 1));
      if (inline.trim() === "" && lines.length > 0) return lines.join("\n");
      number += 1;
      const marker = ordered ? `${String(number)}.` : "-";
      return [`${"   ".repeat(depth)}${marker} ${inline}`, ...lines].join("\n");
    })
    .join("\n");
}

function lexicalBlock(node: LexicalNode, notes: string[]): string {
  switch (node.type) {
    case "heading":
    case "extended-heading":
      return `${"#".repeat(Number(node.tag?.slice(1)) || 2)} ${lexicalInline(node.children)}`;
    case "quote":
    case "extended-quote":
    case "aside":
      return `> ${lexicalInline(node.children)}`;
    case "list":
      return lexicalList(node, 0);
    case "image":
      return `![${node.altText ?? node.alt ?? ""}](${node.src ?? ""})${captionOf(node.caption)}`;
    case "gallery":
      return (
        (node.images ?? [])
          .map((image) => `![${image.alt ?? image.altText ?? ""}](${image.src ?? ""})`)
          .join("\n") + captionOf(node.caption)
      );
    case "markdown":
      return safeMarkdown(node.markdown ?? "", notes);
    case "html":
      return htmlToMarkdown(node.html ?? "");
    case "codeblock":
      return `\`\`\`${node.language ?? ""}\n${node.code ?? ""}\n\`\`\`${captionOf(node.caption)}`;
    case "horizontalrule":
      return "---";
    case "callout":
      return `> ${[node.calloutEmoji, htmlToMarkdown(node.calloutText ?? "")].filter(Boolean).join(" ")}`;
    case "toggle":
      return `**${htmlToMarkdown(node.heading ?? "")}**\n\n${htmlToMarkdown(node.content ?? "")}`;
    case "button":
      return node.buttonUrl ? `[${node.buttonText ?? node.buttonUrl}](${node.buttonUrl})` : "";
    case "bookmark":
    case "embed":
      return node.url
        ? `[${node.metadata?.title ?? node.url}](${node.url})${captionOf(node.caption)}`
        : "";
    case "video":
    case "audio":
    case "file":
      return node.src
        ? `[${node.fileTitle ?? node.fileName ?? node.title ?? node.src}](${node.src})${captionOf(node.caption)}`
        : "";
    case "paragraph":
    case "extended-text":
    case "text":
    case undefined:
      return lexicalInline(node.children ?? (node.text ? [node] : []));
    default:
      if (node.children || node.text) return lexicalInline(node.children ?? [node]);
      notes.push(`a ${node.type} card has no equivalent here and was left out`);
      return "";
  }
}

type MobiledocMarker = [number, number[], number, unknown];
interface Mobiledoc {
  markups?: [string, unknown[]?][];
  cards?: [string, Record<string, unknown>][];
  sections?: unknown[][];
}

/** What a mobiledoc markup opens and closes, in Markdown. */
function delimitersOf(tag: string, attributes: unknown[]): [string, string] {
  const value = attributes[attributes.indexOf("href") + 1];
  switch (tag.toLowerCase()) {
    case "b":
    case "strong":
      return ["**", "**"];
    case "i":
    case "em":
      return ["*", "*"];
    case "code":
      return ["`", "`"];
    case "s":
    case "strike":
    case "del":
      return ["~~", "~~"];
    case "sub":
    case "sup":
      return [`<${tag}>`, `</${tag}>`];
    case "a":
      // A link a page could not follow is its text alone.
      return typeof value === "string" && value !== "" && isSafeHref(value)
        ? ["[", `](${value})`]
        : ["", ""];
    default:
      return ["", ""];
  }
}

/**
 * Ghost 1-4's mobiledoc: markup and list sections, and the markdown, html, image (with caption),
 * code (with caption), gallery, embed, bookmark and hr cards; any other card is named in `notes`.
 */
export function mobiledocToMarkdown(document: unknown, notes: string[] = []): string {
  const doc = (document ?? {}) as Mobiledoc;
  const markups = doc.markups ?? [];
  const cards = doc.cards ?? [];
  const inline = (markers: MobiledocMarker[] = []) => {
    let out = "";
    const open: string[] = [];
    for (const [kind, opened, closed, value] of markers) {
      let text = kind === 0 ? escapeMarkdown(String(value)) : "";
      for (const index of opened) {
        const [tag, attributes = []] = markups[index] ?? ["", []];
        const [start, end] = delimitersOf(tag, attributes);
        // Spaces before the opening delimiter, as Markdown needs them.
        const lead = /^\s*/.exec(text)?.[0] ?? "";
        out += lead + start;
        text = text.slice(lead.length);
        open.push(end);
      }
      out += text;
      for (let count = 0; count < closed; count += 1) {
        // And after the closing one.
        const trail = /\s*$/.exec(out)?.[0] ?? "";
        out = out.slice(0, out.length - trail.length) + (open.pop() ?? "") + trail;
      }
    }
    return out;
  };
  const blocks = (doc.sections ?? []).map((section) => {
    const [kind] = section;
    if (kind === 1) {
      const tag = String(section[1]).toLowerCase();
      const body = inline(section[2] as MobiledocMarker[]);
      if (/^h[1-6]$/.test(tag)) return `${"#".repeat(Number(tag.slice(1)))} ${body}`;
      if (tag === "blockquote" || tag === "aside") return `> ${body}`;
      return body;
    }
    if (kind === 3) {
      const ordered = String(section[1]).toLowerCase() === "ol";
      return (section[2] as MobiledocMarker[][])
        .map((item, index) => `${ordered ? `${String(index + 1)}.` : "-"} ${inline(item)}`)
        .join("\n");
    }
    if (kind === 10) {
      const [name, payload] = cards[Number(section[1])] ?? ["", {}];
      const field = (key: string) => (typeof payload[key] === "string" ? payload[key] : "");
      const caption = captionOf(field("caption"));
      switch (name) {
        case "markdown":
        case "card-markdown":
          return safeMarkdown(field("markdown"), notes);
        case "html":
          return htmlToMarkdown(field("html"));
        case "image":
          return `![${field("alt")}](${field("src")})${caption}`;
        case "gallery": {
          const images = Array.isArray(payload.images) ? (payload.images as LexicalNode[]) : [];
          return (
            images.map((image) => `![${image.alt ?? ""}](${image.src ?? ""})`).join("\n") + caption
          );
        }
        case "code":
          return `\`\`\`${field("language")}\n${field("code")}\n\`\`\`${caption}`;
        case "embed":
        case "bookmark":
          return field("url") ? `[${field("url")}](${field("url")})${caption}` : "";
        case "hr":
          return "---";
        default:
          notes.push(`a ${name || "nameless"} card has no equivalent here and was left out`);
          return "";
      }
    }
    return "";
  });
  return blocks.filter(Boolean).join("\n\n").trim();
}
