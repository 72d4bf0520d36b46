import { z } from "zod";
import { IMAGE_ALT_MAX } from "../../contract/limits.js";
import { isoTime, SourceRefused, type ForeignBlog, type ForeignPost } from "./foreign.js";
import { htmlToMarkdown } from "./html-to-markdown.js";

/**
 * Ghost's JSON export (Settings > Advanced > Import/Export > Export content): `db[0].data` holds
 * the tables posts, tags, posts_tags, users and posts_authors. A post's body is its `html` when
 * the export has it, else its Lexical (Ghost 5) or mobiledoc (Ghost 1-4) document.
 */
const text = z.string().nullish();
const GhostSchema = z.object({
  data: z.object({
    posts: z.array(
      z.looseObject({
        id: z.union([z.string(), z.number()]).transform(String),
        title: text,
        slug: text,
        html: text,
        lexical: text,
        mobiledoc: text,
        feature_image: text,
        type: text,
        status: text,
        visibility: text,
        created_at: z.unknown(),
        updated_at: z.unknown(),
        published_at: z.unknown(),
        author_id: z.union([z.string(), z.number()]).nullish(),
      }),
    ),
    tags: z
      .array(
        z.looseObject({
          id: z.union([z.string(), z.number()]).transform(String),
          name: z.string(),
        }),
      )
      .default([]),
    posts_tags: z
      .array(
        z.looseObject({
          post_id: z.union([z.string(), z.number()]).transform(String),
          tag_id: z.union([z.string(), z.number()]).transform(String),
          sort_order: z.number().nullish(),
        }),
      )
      .default([]),
    users: z
      .array(
        z.looseObject({
          id: z.union([z.string(), z.number()]).transform(String),
          name: text,
          slug: text,
          email: text,
          bio: text,
        }),
      )
      .default([]),
    // Ghost 5 keeps a feature image's alt text here.
    posts_meta: z
      .array(
        z.looseObject({
          post_id: z.union([z.string(), z.number()]).transform(String),
          feature_image_alt: text,
        }),
      )
      .default([]),
    posts_authors: z
      .array(
        z.looseObject({
          post_id: z.union([z.string(), z.number()]).transform(String),
          author_id: z.union([z.string(), z.number()]).transform(String),
          sort_order: z.number().nullish(),
        }),
      )
      .default([]),
  }),
});

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

export function readGhostExport(source: string): ForeignBlog {
  let json: unknown;
  try {
    json = JSON.parse(source);
  } catch (error) {
    throw new SourceRefused(
      `The Ghost export is not valid JSON (${(error as Error).message}). Nothing was imported.`,
    );
  }
  // Exports wrap the database in `db: [...]`; older ones have it at the top.
  const database =
    typeof json === "object" && json !== null && "db" in json && Array.isArray(json.db)
      ? (json.db as unknown[])[0]
      : json;
  const parsed = GhostSchema.safeParse(database);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SourceRefused(
      `This is not a Ghost JSON export: db[0].${issue?.path.join(".") ?? ""} ${issue?.message ?? ""}. Nothing was imported.`,
    );
  }
  const { posts, tags, posts_tags, users, posts_authors, posts_meta } = parsed.data.data;
  const imageAlts = new Map(posts_meta.map((meta) => [meta.post_id, meta.feature_image_alt]));
  const tagNames = new Map(tags.map((tag) => [tag.id, tag.name]));
  const byOrder = (a: { sort_order?: number | null }, b: { sort_order?: number | null }) =>
    (a.sort_order ?? 0) - (b.sort_order ?? 0);
  const skipped: ForeignBlog["skipped"] = [];
  const foreignPosts: ForeignPost[] = [];

  for (const post of posts) {
    const ref = post.slug ?? post.id;
    if ((post.type ?? "post") !== "post") {
      skipped.push({ item: `${post.type ?? ""} ${ref}`, reason: "pages are not posts here" });
      continue;
    }
    const createdAt = isoTime(post.created_at);
    if (!createdAt) {
      skipped.push({ item: `post ${ref}`, reason: "it has no creation time" });
      continue;
    }
    // Ghost's primary tag is the post's first; internal tags (#...) are not categories.
    const primaryTag = posts_tags
      .filter((link) => link.post_id === post.id)
      .sort(byOrder)
      .map((link) => tagNames.get(link.tag_id))
      .find((name) => name !== undefined && !name.startsWith("#"));
    const author =
      posts_authors.filter((link) => link.post_id === post.id).sort(byOrder)[0]?.author_id ??
      (post.author_id == null ? "" : String(post.author_id));
    let markdown: string;
    try {
      markdown = bodyOf(post);
    } catch {
      skipped.push({
        item: `post ${ref}`,
        reason: "its Lexical or mobiledoc document is not JSON",
      });
      continue;
    }
    foreignPosts.push({
      ref,
      title: post.title ?? "",
      markdown,
      status: post.status === "published" ? "published" : "draft",
      hiddenBecause: hiddenOnGhost(post),
      publishedAt: isoTime(post.published_at) ?? null,
      createdAt,
      updatedAt: isoTime(post.updated_at) ?? createdAt,
      category: primaryTag ?? null,
      authorRef: author,
      featureImage: post.feature_image ?? null,
      featureImageAlt: imageAlts.get(post.id)?.trim().slice(0, IMAGE_ALT_MAX) || null,
      comments: [],
    });
  }
  return {
    source: "Ghost",
    authors: users.map((user) => ({
      ref: user.id,
      name: user.name ?? user.slug ?? "author",
      email: user.email ?? "",
      bio: user.bio ?? "",
    })),
    posts: foreignPosts,
    skipped,
  };
}

function bodyOf(post: {
  html?: string | null;
  lexical?: string | null;
  mobiledoc?: string | null;
}) {
  if (post.html?.trim()) return htmlToMarkdown(post.html);
  if (post.lexical?.trim()) return lexicalToMarkdown(JSON.parse(post.lexical) as unknown);
  if (post.mobiledoc?.trim()) return mobiledocToMarkdown(JSON.parse(post.mobiledoc) as unknown);
  return "";
}

interface LexicalNode {
  type?: string;
  text?: string;
  format?: number | string;
  tag?: string;
  listType?: string;
  url?: string;
  src?: string;
  altText?: string;
  caption?: string;
  markdown?: string;
  html?: string;
  code?: string;
  language?: string;
  children?: LexicalNode[];
}

/** Ghost 5's Lexical document: its common nodes and cards; anything else by its text. */
export function lexicalToMarkdown(document: unknown): string {
  const root = (document as { root?: LexicalNode } | null)?.root;
  return (root?.children ?? [])
    .map((node) => lexicalBlock(node))
    .filter(Boolean)
    .join("\n\n")
    .trim();
}

function lexicalInline(nodes: LexicalNode[] = []): string {
  return nodes
    .map((node) => {
      if (node.type === "linebreak") return "  \n";
      if (node.type === "link") return `[${lexicalInline(node.children)}](${node.url ?? ""})`;
      if (node.children) return lexicalInline(node.children);
      let value = node.text ?? "";
      const format = typeof node.format === "number" ? node.format : 0;
      if (format & 16) value = `\`${value}\``;
      if (format & 2) value = `*${value}*`;
      if (format & 1) value = `**${value}**`;
      return value;
    })
    .join("");
}

function lexicalBlock(node: LexicalNode): string {
  switch (node.type) {
    case "heading":
      return `${"#".repeat(Number(node.tag?.slice(1)) || 2)} ${lexicalInline(node.children)}`;
    case "quote":
    case "aside":
      return `> ${lexicalInline(node.children)}`;
    case "list":
      return (node.children ?? [])
        .map(
          (item, index) =>
            `${node.listType === "number" ? `${String(index + 1)}.` : "-"} ${lexicalInline(item.children)}`,
        )
        .join("\n");
    case "image":
      return `![${node.altText ?? ""}](${node.src ?? ""})${node.caption ? `\n\n*${htmlToMarkdown(node.caption)}*` : ""}`;
    case "markdown":
      return node.markdown ?? "";
    case "html":
      return htmlToMarkdown(node.html ?? "");
    case "codeblock":
      return `\`\`\`${node.language ?? ""}\n${node.code ?? ""}\n\`\`\``;
    case "horizontalrule":
      return "---";
    default:
      return lexicalInline(node.children ?? (node.text ? [node] : []));
  }
}

type MobiledocMarker = [number, number[], number, unknown];
interface Mobiledoc {
  markups?: [string, unknown[]?][];
  cards?: [string, Record<string, unknown>][];
  sections?: unknown[][];
}

/** Ghost 1-4's mobiledoc: markup and list sections, and the markdown, html, image, code and hr cards. */
export function mobiledocToMarkdown(document: unknown): string {
  const doc = (document ?? {}) as Mobiledoc;
  const markups = doc.markups ?? [];
  const cards = doc.cards ?? [];
  const inline = (markers: MobiledocMarker[] = []) => {
    let out = "";
    const open: string[] = [];
    for (const [kind, opened, closed, value] of markers) {
      for (const index of opened) {
        const [tag, attributes = []] = markups[index] ?? ["", []];
        const value = attributes[attributes.indexOf("href") + 1];
        const href = typeof value === "string" ? value : "";
        const [start, end] =
          tag === "b" || tag === "strong"
            ? ["**", "**"]
            : tag === "i" || tag === "em"
              ? ["*", "*"]
              : tag === "code"
                ? ["`", "`"]
                : tag === "a"
                  ? ["[", `](${href})`]
                  : ["", ""];
        out += start;
        open.push(end);
      }
      out += kind === 0 ? String(value) : "";
      for (let count = 0; count < closed; count += 1) out += open.pop() ?? "";
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
      if (name === "markdown" || name === "card-markdown") return field("markdown");
      if (name === "html") return htmlToMarkdown(field("html"));
      if (name === "image") return `![${field("alt")}](${field("src")})`;
      if (name === "code") return `\`\`\`${field("language")}\n${field("code")}\n\`\`\``;
      if (name === "hr") return "---";
    }
    return "";
  });
  return blocks.filter(Boolean).join("\n\n").trim();
}
