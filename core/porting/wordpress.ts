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
 * A WordPress eXtended RSS file (Tools > Export): the channel's `wp:author`s, and its `item`s of
 * type post with their categories, status, dates, feature image (`_thumbnail_id`, an attachment
 * item) and approved comments.
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
  for (const item of items) {
    const type = textOf(item, "wp:post_type");
    const ref = textOf(item, "wp:post_name") || textOf(item, "wp:post_id");
    if (type !== "post") {
      if (type === "page")
        skipped.push({
          item: `page ${ref}`,
          reason:
            "this site has posts only: copy a page's text into a post by hand if it should stay",
        });
      else if (type !== "attachment" && type !== "nav_menu_item")
        skipped.push({ item: `${type || "item"} ${ref}`, reason: "only posts are imported" });
      continue;
    }
    const status = textOf(item, "wp:status");
    if (!["publish", "private", "draft", "pending", "future"].includes(status)) {
      skipped.push({ item: `post ${ref}`, reason: `its status is ${status || "unknown"}` });
      continue;
    }
    const createdAt =
      wordpressTime(textOf(item, "wp:post_date_gmt")) ??
      wordpressTime(textOf(item, "wp:post_date")) ??
      isoTime(textOf(item, "pubDate"));
    if (!createdAt) {
      skipped.push({ item: `post ${ref}`, reason: "it has no date" });
      continue;
    }
    const source = child(item, "content:encoded")?.text ?? "";
    if (source.length > SOURCE_MAX) {
      skipped.push({
        item: `post ${ref}`,
        reason: `its body is ${String(source.length)} characters of HTML; posts may have ${String(POST_DESCRIPTION_MAX)} as Markdown`,
      });
      continue;
    }
    const work = source.length + commentsLength(item);
    if (converted + work > sourceMax) {
      skipped.push({ item: `post ${ref}`, reason: budgetSpent(sourceMax) });
      continue;
    }
    converted += work;
    try {
      posts.push(
        readPost(item, { ref, status, createdAt, source, attachments, attachmentsById }, skipped),
      );
    } catch (error) {
      // One post that cannot be converted is that post's line in the report, never the import's end.
      skipped.push({
        item: `post ${ref}`,
        reason: `its body could not be converted (${(error as Error).message})`,
      });
    }
  }
  const siteUrl = textOf(channel, "link");
  return {
    source: "WordPress",
    authors,
    posts,
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

/** One post item of the export as the writer takes it: its body converted, its comments read. */
function readPost(
  item: XmlElement,
  context: {
    ref: string;
    status: string;
    createdAt: string;
    source: string;
    attachments: Attachment[];
    attachmentsById: ReadonlyMap<string, Attachment>;
  },
  skipped: ForeignBlog["skipped"],
): ForeignPost {
  const { ref, status, createdAt, source, attachments, attachmentsById } = context;
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
  const hiddenBecause =
    textOf(item, "wp:post_password") === ""
      ? (HIDDEN_STATUSES[status] ?? null)
      : "password-protected";
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
  const html = expandShortcodes(source, { postId: textOf(item, "wp:post_id"), attachments }, notes);
  const cover = attachmentsById.get(metaOf(item, "_thumbnail_id"));
  return {
    ref,
    title: textOfHtml(child(item, "title")?.text ?? ""),
    markdown: htmlToMarkdown(autop(html)),
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
