import { SaxesParser } from "saxes";
import { COMMENT_MAX, IMAGE_ALT_MAX, POST_DESCRIPTION_MAX } from "../../contract/limits.js";
import {
  budgetSpent,
  IMPORT_SOURCE_MAX,
  isoTime,
  SourceRefused,
  type ReadLimits,
  type ForeignAuthor,
  type ForeignBlog,
  type ForeignComment,
  type ForeignPage,
  type ForeignPost,
} from "./foreign.js";
import { htmlToMarkdown } from "./html-to-markdown.js";
import {
  autop,
  commentText,
  expandShortcodes,
  textOfHtml,
  type Attachment,
} from "./wordpress-html.js";

/** An element of the export, as far as the reader needs: its name, attributes, children, text. */
interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

/** The whole document as elements; a file that is not well-formed XML is refused. */
function parseXml(source: string): XmlElement {
  const parser = new SaxesParser({ xmlns: false });
  const root: XmlElement = { name: "", attributes: {}, children: [], text: "" };
  const stack: XmlElement[] = [root];
  const current = () => stack[stack.length - 1] ?? root;
  parser.on("opentag", (tag) => {
    const element: XmlElement = {
      name: tag.name,
      attributes: { ...tag.attributes },
      children: [],
      text: "",
    };
    current().children.push(element);
    stack.push(element);
  });
  parser.on("closetag", () => {
    stack.pop();
  });
  parser.on("text", (text) => {
    current().text += text;
  });
  parser.on("cdata", (text) => {
    current().text += text;
  });
  try {
    parser.write(source).close();
  } catch (error) {
    throw new SourceRefused(
      `The WordPress export is not well-formed XML (${(error as Error).message}). Nothing was imported.`,
    );
  }
  return root;
}

const child = (element: XmlElement | undefined, name: string) =>
  element?.children.find((candidate) => candidate.name === name);
const all = (element: XmlElement | undefined, name: string) =>
  element?.children.filter((candidate) => candidate.name === name) ?? [];
const textOf = (element: XmlElement | undefined, name: string) =>
  (child(element, name)?.text ?? "").trim();
/** A post's custom field (`wp:postmeta`) by its key. */
const metaOf = (item: XmlElement, key: string) =>
  textOf(
    all(item, "wp:postmeta").find((meta) => textOf(meta, "wp:meta_key") === key),
    "wp:meta_value",
  );

/** WordPress writes GMT times as `2024-01-02 03:04:05`, and `0000-00-00 00:00:00` for none. */
function wordpressTime(value: string) {
  if (value === "" || value.startsWith("0000")) return undefined;
  return isoTime(
    /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/.test(value) ? `${value.replace(" ", "T")}Z` : value,
  );
}

/**
 * The most HTML a post's body may have to be read: ten times what a post may have as Markdown.
 * More cannot fit, and reading it would only cost time (the conversion is not linear on every
 * input).
 */
const SOURCE_MAX = 10 * POST_DESCRIPTION_MAX;

/** Why a post of these statuses is not public on WordPress; a plain draft needs no reason. */
const HIDDEN_STATUSES: Record<string, string> = {
  private: "private",
  pending: "pending review",
  future: "scheduled",
};

/**
 * A WordPress eXtended RSS file (Tools > Export): the channel's `wp:author`s, its `item`s of
 * type post with their categories, status, dates, feature image (`_thumbnail_id`, an attachment
 * item) and approved comments, and its items of type page.
 */
export function readWordpressExport(source: string, limits: ReadLimits = {}): ForeignBlog {
  const sourceMax = limits.sourceMax ?? IMPORT_SOURCE_MAX;
  let converted = 0;
  const document = parseXml(source);
  const channel = child(child(document, "rss"), "channel");
  if (
    !channel ||
    !/wordpress\.org\/export\//.test(child(document, "rss")?.attributes["xmlns:wp"] ?? "")
  ) {
    throw new SourceRefused(
      "This is not a WordPress export (WXR): no <rss> with the wp namespace and a <channel>. Nothing was imported.",
    );
  }
  const authors: ForeignAuthor[] = all(channel, "wp:author").map((author) => ({
    ref: textOf(author, "wp:author_login"),
    name: textOf(author, "wp:author_display_name") || textOf(author, "wp:author_login"),
    email: textOf(author, "wp:author_email"),
    bio: "",
  }));
  const items = all(channel, "item");
  const attachments: Attachment[] = items
    .filter((item) => textOf(item, "wp:post_type") === "attachment")
    .map((item) => ({
      id: textOf(item, "wp:post_id"),
      parent: textOf(item, "wp:post_parent"),
      url: textOf(item, "wp:attachment_url") || textOf(item, "guid"),
      title: textOfHtml(child(item, "title")?.text ?? ""),
      alt: metaOf(item, "_wp_attachment_image_alt"),
    }));
  const attachmentsById = new Map(attachments.map((attachment) => [attachment.id, attachment]));
  // Where each upload sits in wp-content/uploads, whatever address the export gives it.
  const imagePaths = new Map<string, string>();
  for (const item of items) {
    const file = metaOf(item, "_wp_attached_file");
    const url = textOf(item, "wp:attachment_url");
    if (file !== "" && url !== "") imagePaths.set(url, file);
  }
  const skipped: ForeignBlog["skipped"] = [];
  const posts: ForeignPost[] = [];
  const pages: ForeignPage[] = [];
  for (const item of items) {
    const type = textOf(item, "wp:post_type");
    const ref = textOf(item, "wp:post_name") || textOf(item, "wp:post_id");
    if (type !== "post" && type !== "page") {
      if (type !== "attachment" && type !== "nav_menu_item")
        skipped.push({
          item: `${type || "item"} ${ref}`,
          reason: "only posts and pages are imported",
        });
      continue;
    }
    const status = textOf(item, "wp:status");
    if (!["publish", "private", "draft", "pending", "future"].includes(status)) {
      skipped.push({ item: `${type} ${ref}`, reason: `its status is ${status || "unknown"}` });
      continue;
    }
    const createdAt =
      wordpressTime(textOf(item, "wp:post_date_gmt")) ??
      wordpressTime(textOf(item, "wp:post_date")) ??
      isoTime(textOf(item, "pubDate"));
    if (!createdAt) {
      skipped.push({ item: `${type} ${ref}`, reason: "it has no date" });
      continue;
    }
    const source = child(item, "content:encoded")?.text ?? "";
    if (source.length > SOURCE_MAX) {
      skipped.push({
        item: `${type} ${ref}`,
        reason: `its body is ${String(source.length)} characters of HTML; ${type}s may have ${String(POST_DESCRIPTION_MAX)} as Markdown`,
      });
      continue;
    }
    // A page's comments are not read (pages have none here): they cost nothing to convert.
    const work = source.length + (type === "post" ? commentsLength(item) : 0);
    if (converted + work > sourceMax) {
      skipped.push({ item: `${type} ${ref}`, reason: budgetSpent(sourceMax) });
      continue;
    }
    converted += work;
    const context = { ref, status, createdAt, source, attachments, attachmentsById };
    try {
      if (type === "page") pages.push(readPage(item, context, skipped));
      else posts.push(readPost(item, context, skipped));
    } catch (error) {
      // One item that cannot be converted is its line in the report, never the import's end.
      skipped.push({
        item: `${type} ${ref}`,
        reason: `its body could not be converted (${(error as Error).message})`,
      });
    }
  }
  const siteUrl = textOf(channel, "link");
  return {
    source: "WordPress",
    authors,
    posts,
    pages,
    skipped,
    imagePaths,
    ...(URL.canParse(siteUrl) ? { siteUrl } : {}),
  };
}

/** The characters of HTML a post's comments bring to convert. */
const commentsLength = (item: XmlElement) =>
  all(item, "wp:comment").reduce(
    (sum, comment) => sum + (child(comment, "wp:comment_content")?.text.length ?? 0),
    0,
  );

/** What the reader knows of an item before its body is converted. */
interface ItemContext {
  ref: string;
  status: string;
  createdAt: string;
  source: string;
  attachments: Attachment[];
  attachmentsById: ReadonlyMap<string, Attachment>;
}

/** Why an item is not public on WordPress (its status, or a password), or null. */
const hiddenOnWordpress = (item: XmlElement, status: string) =>
  textOf(item, "wp:post_password") === ""
    ? (HIDDEN_STATUSES[status] ?? null)
    : "password-protected";

/** An item's body as Markdown: its shortcodes expanded, its paragraphs made, then converted. */
function markdownOf(item: XmlElement, context: ItemContext, notes: string[]) {
  const html = expandShortcodes(
    context.source,
    { postId: textOf(item, "wp:post_id"), attachments: context.attachments },
    notes,
  );
  return htmlToMarkdown(autop(html));
}

/**
 * One page item as the writer takes it: its body converted as a post's; its excerpt (or Yoast's
 * meta description) describes it. Its comments are reported: pages have none here.
 */
function readPage(
  item: XmlElement,
  context: ItemContext,
  skipped: ForeignBlog["skipped"],
): ForeignPage {
  const { ref, status, createdAt } = context;
  const notes: string[] = [];
  const comments = all(item, "wp:comment").length;
  if (comments > 0)
    skipped.push({
      item: `${String(comments)} comment(s) on page ${ref}`,
      reason: "pages have no comments here",
    });
  const description =
    metaOf(item, "_yoast_wpseo_metadesc") || textOfHtml(child(item, "excerpt:encoded")?.text ?? "");
  return {
    ref,
    slug: textOf(item, "wp:post_name"),
    title: textOfHtml(child(item, "title")?.text ?? ""),
    markdown: markdownOf(item, context, notes),
    status: status === "publish" ? "published" : "draft",
    hiddenBecause: hiddenOnWordpress(item, status),
    publishedAt: status === "publish" ? createdAt : null,
    createdAt,
    updatedAt: wordpressTime(textOf(item, "wp:post_modified_gmt")) ?? createdAt,
    authorRef: textOf(item, "dc:creator"),
    metaDescription: description.trim() || null,
    notes,
  };
}

/** One post item of the export as the writer takes it: its body converted, its comments read. */
function readPost(
  item: XmlElement,
  context: ItemContext,
  skipped: ForeignBlog["skipped"],
): ForeignPost {
  const { ref, status, createdAt, attachmentsById } = context;
  const notes: string[] = [];
  const comments: ForeignComment[] = [];
  // Pingbacks, trackbacks and plugins' own kinds (reviews, webmentions...), counted by kind.
  const otherKinds = new Map<string, number>();
  for (const comment of all(item, "wp:comment")) {
    const author = textOf(comment, "wp:comment_author") || "Anonymous";
    const kind = textOf(comment, "wp:comment_type");
    if (textOf(comment, "wp:comment_approved") !== "1") {
      skipped.push({ item: `a comment by ${author} on ${ref}`, reason: "it was not approved" });
      continue;
    }
    if (kind !== "" && kind !== "comment") {
      otherKinds.set(kind, (otherKinds.get(kind) ?? 0) + 1);
      continue;
    }
    const html = child(comment, "wp:comment_content")?.text ?? "";
    if (html.length > 10 * COMMENT_MAX) {
      skipped.push({
        item: `a comment by ${author} on ${ref}`,
        reason: `comments have at most ${String(COMMENT_MAX)} characters; it has ${String(html.length)}`,
      });
      continue;
    }
    const commentedAt =
      wordpressTime(textOf(comment, "wp:comment_date_gmt")) ??
      wordpressTime(textOf(comment, "wp:comment_date")) ??
      createdAt;
    comments.push({
      authorName: author,
      // Comments here are plain text: the HTML WordPress allows in them becomes its text.
      text: commentText(html),
      createdAt: commentedAt,
    });
  }
  for (const [kind, count] of otherKinds)
    skipped.push({
      item: `${String(count)} ${kind}(s) on ${ref}`,
      reason:
        kind === "pingback" || kind === "trackback"
          ? "pingbacks and trackbacks are other sites' notices of a link, not comments; this site keeps none"
          : `only comments are imported, not WordPress's "${kind}" kind`,
    });
  // A password-protected post shows its body and comments only to those given the password.
  const hiddenBecause = hiddenOnWordpress(item, status);
  const terms = (domain: string) =>
    all(item, "category")
      .filter((category) => category.attributes.domain === domain)
      .map((category) => textOfHtml(category.text))
      .filter(Boolean);
  const [category = null, ...otherCategories] = terms("category");
  if (otherCategories.length > 0)
    notes.push(
      `also in the categories ${otherCategories.join(", ")} (a post has one category here): kept as tags where they fit`,
    );
  if (textOf(item, "wp:is_sticky") === "1")
    notes.push("was sticky on WordPress; this site has no pinned posts, it is listed by its date");
  const markdown = markdownOf(item, context, notes);
  const cover = attachmentsById.get(metaOf(item, "_thumbnail_id"));
  return {
    ref,
    title: textOfHtml(child(item, "title")?.text ?? ""),
    markdown,
    status: status === "publish" ? "published" : "draft",
    hiddenBecause,
    publishedAt: status === "publish" ? createdAt : null,
    createdAt,
    updatedAt: wordpressTime(textOf(item, "wp:post_modified_gmt")) ?? createdAt,
    category,
    tags: [...terms("post_tag"), ...otherCategories],
    authorRef: textOf(item, "dc:creator"),
    featureImage: cover?.url ?? null,
    featureImageAlt: cover?.alt.slice(0, IMAGE_ALT_MAX) || null,
    comments,
    notes,
  };
}
