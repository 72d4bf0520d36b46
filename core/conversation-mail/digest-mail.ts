import type { MailEventKind } from "../../db/schema.js";
import type { MailMessage } from "../mail/mailer.js";
import type { CoreDeps } from "../deps.js";
import { unsubscribeLinks } from "./unsubscribe.js";
import { postPath } from "../../contract/page-paths.js";

export interface MailedComment {
  kind: MailEventKind;
  commentId: string;
  text: string;
  postId: string;
  postTitle: string;
  author: string;
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => `&#${String(c.codePointAt(0))};`);

const QUOTE_MAX = 300;
const quote = (text: string) =>
  text.length > QUOTE_MAX ? `${text.slice(0, QUOTE_MAX - 1).trimEnd()}…` : text;

const lineOf = (comment: MailedComment) =>
  comment.kind === "reply"
    ? `${comment.author} replied to your comment on "${comment.postTitle}"`
    : `${comment.author} commented on your post "${comment.postTitle}"`;

/**
 * One mail telling a person everything new since the last: each comment quoted with a link to it,
 * and a one-click way to stop (a link in the body; List-Unsubscribe and List-Unsubscribe-Post
 * headers, RFC 8058).
 */
export async function conversationMail(
  deps: Pick<CoreDeps, "db" | "site">,
  recipient: { id: string; email: string; username: string },
  comments: MailedComment[],
  key: { id: string; date: Date },
): Promise<MailMessage> {
  const site = deps.site.title;
  const links = await unsubscribeLinks(deps, recipient.id);
  const [first] = comments;
  const subject =
    comments.length === 1 && first
      ? `${lineOf(first)} on ${site}`
      : `${String(comments.length)} new comments on ${site}`;
  const items = comments.map((comment) => ({
    line: lineOf(comment),
    text: quote(comment.text),
    link: `${deps.site.mailLinkUrl}${postPath(comment.postId)}#comment-${comment.commentId}`,
  }));
  const intro = `Hello ${recipient.username}, here is what is new in your conversations on ${site}.`;
  const footer = `You get this mail because someone answered you on ${site}. Stop these mails:`;
  const text =
    `${intro}\n\n` +
    items.map((item) => `${item.line}:\n  ${item.text}\n  ${item.link}\n`).join("\n") +
    `\n${footer} ${links.page}\n`;
  const html =
    `<p>${escapeHtml(intro)}</p>` +
    items
      .map(
        (item) =>
          `<p><strong>${escapeHtml(item.line)}</strong></p>` +
          `<blockquote>${escapeHtml(item.text)}</blockquote>` +
          `<p><a href="${escapeHtml(item.link)}">Read it</a></p>`,
      )
      .join("") +
    `<p>${escapeHtml(footer)} <a href="${escapeHtml(links.page)}">unsubscribe</a></p>`;
  return {
    to: recipient.email,
    subject,
    text,
    html,
    link: items[0]?.link ?? links.page,
    headers: {
      "List-Unsubscribe": `<${links.oneClick}>`,
      "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    },
    key,
  };
}
