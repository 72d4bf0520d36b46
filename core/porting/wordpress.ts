import { SaxesParser } from "saxes";
import {
  isoTime,
  SourceRefused,
  type ForeignAuthor,
  type ForeignBlog,
  type ForeignComment,
  type ForeignPost,
} from "./foreign.js";
import { htmlToMarkdown } from "./html-to-markdown.js";

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

/** WordPress writes GMT times as `2024-01-02 03:04:05`, and `0000-00-00 00:00:00` for none. */
function wordpressTime(value: string) {
  if (value === "" || value.startsWith("0000")) return undefined;
  return isoTime(
    /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/.test(value) ? `${value.replace(" ", "T")}Z` : value,
  );
}

/**
 * WordPress's paragraphs are often blank lines rather than <p> elements (its editor adds them when
 * it shows a post): those become paragraphs before the HTML is read.
 */
function withParagraphs(html: string) {
  if (/<p[\s>]/i.test(html)) return html;
  return html
    .split(/\n\s*\n/)
    .map((block) => block.trim())
    .filter(Boolean)
    .map((block) =>
      /^<(h[1-6]|ul|ol|blockquote|pre|figure|div|table|hr|!--)/i.test(block)
        ? block
        : `<p>${block.replace(/\n/g, "<br>")}</p>`,
    )
    .join("\n");
}

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
export function readWordpressExport(source: string): ForeignBlog {
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
  const attachments = new Map(
    items
      .filter((item) => textOf(item, "wp:post_type") === "attachment")
      .map((item) => [textOf(item, "wp:post_id"), textOf(item, "wp:attachment_url")]),
  );
  const skipped: ForeignBlog["skipped"] = [];
  const posts: ForeignPost[] = [];
  for (const item of items) {
    const type = textOf(item, "wp:post_type");
    const ref = textOf(item, "wp:post_name") || textOf(item, "wp:post_id");
    if (type !== "post") {
      if (type !== "attachment" && type !== "nav_menu_item")
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
    const thumbnail = all(item, "wp:postmeta").find(
      (meta) => textOf(meta, "wp:meta_key") === "_thumbnail_id",
    );
    const comments: ForeignComment[] = [];
    for (const comment of all(item, "wp:comment")) {
      const author = textOf(comment, "wp:comment_author") || "Anonymous";
      const kind = textOf(comment, "wp:comment_type");
      if (textOf(comment, "wp:comment_approved") !== "1") {
        skipped.push({ item: `a comment by ${author} on ${ref}`, reason: "it was not approved" });
        continue;
      }
      if (kind !== "" && kind !== "comment") continue; // pingbacks and trackbacks
      const commentedAt =
        wordpressTime(textOf(comment, "wp:comment_date_gmt")) ??
        wordpressTime(textOf(comment, "wp:comment_date")) ??
        createdAt;
      comments.push({
        authorName: author,
        authorEmail: textOf(comment, "wp:comment_author_email"),
        // Comments here are plain text: the HTML WordPress allows in them is read as text.
        text: htmlToMarkdown(withParagraphs(child(comment, "wp:comment_content")?.text ?? "")),
        createdAt: commentedAt,
      });
    }
    // A password-protected post shows its body and comments only to those given the password.
    const hiddenBecause =
      textOf(item, "wp:post_password") === ""
        ? (HIDDEN_STATUSES[status] ?? null)
        : "password-protected";
    posts.push({
      ref,
      title: child(item, "title")?.text ?? "",
      markdown: htmlToMarkdown(withParagraphs(child(item, "content:encoded")?.text ?? "")),
      status: status === "publish" ? "published" : "draft",
      hiddenBecause,
      publishedAt: status === "publish" ? createdAt : null,
      createdAt,
      updatedAt: wordpressTime(textOf(item, "wp:post_modified_gmt")) ?? createdAt,
      category:
        all(item, "category")
          .find((category) => category.attributes.domain === "category")
          ?.text.trim() ?? null,
      authorRef: textOf(item, "dc:creator"),
      featureImage: thumbnail
        ? (attachments.get(textOf(thumbnail, "wp:meta_value")) ?? null)
        : null,
      // WordPress keeps alt text on the attachment's meta, which WXR carries unreliably.
      featureImageAlt: null,
      comments,
    });
  }
  return { source: "WordPress", authors, posts, skipped };
}
