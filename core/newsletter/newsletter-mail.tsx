import { Heading } from "@react-email/heading";
import { Img } from "@react-email/img";
import { Link } from "@react-email/link";
import { Text } from "@react-email/text";
import { colours, MailLayout, renderMail } from "../mail/layout.js";

// The newsletter's mails (decision 028): a post as it reads on the site, and the confirmation.
// Nothing in them tracks: no pixel, no redirected link.

const MONOSPACE = "ui-monospace, SFMono-Regular, Menlo, Consolas, 'Liberation Mono', monospace";

/**
 * The post page's body styles (app/features/posts/post-body.css) in a mail's terms: pixels, no
 * variables, and code that wraps rather than widens the mail where a client ignores `overflow`.
 * Inlined into the body's elements by renderMail.
 */
const POST_BODY_CSS = `
.post-body { font-size: 17px; line-height: 1.6; overflow-wrap: break-word; word-wrap: break-word; }
.post-body h1, .post-body h2, .post-body h3, .post-body h4, .post-body h5, .post-body h6 { margin: 28px 0 10px; line-height: 1.25; font-weight: 700; color: ${colours.text}; }
.post-body h1 { font-size: 27px; }
.post-body h2 { font-size: 23px; }
.post-body h3 { font-size: 19px; }
.post-body h4, .post-body h5, .post-body h6 { font-size: 17px; }
.post-body p { margin: 0 0 16px; }
.post-body a { color: ${colours.accent}; text-decoration: underline; }
.post-body a.header-anchor { color: ${colours.text}; text-decoration: none; }
.post-body img { display: block; max-width: 100%; height: auto; margin: 16px auto; border: 0; border-radius: 10px; }
.post-body blockquote { margin: 16px 0; padding: 4px 16px; border-left: 4px solid ${colours.line}; color: ${colours.muted}; }
.post-body ul, .post-body ol { margin: 0 0 16px; padding-left: 27px; }
.post-body li { margin: 4px 0; }
.post-body hr { border: 0; border-top: 1px solid ${colours.line}; margin: 32px 0; }
.post-body code { font-family: ${MONOSPACE}; font-size: 15px; background: ${colours.codeBg}; color: ${colours.text}; border-radius: 4px; padding: 2px 5px; }
.post-body pre { max-width: 100%; overflow-x: auto; margin: 16px 0; padding: 14px 16px; background: ${colours.codeBg}; color: ${colours.text}; border: 1px solid ${colours.line}; border-radius: 10px; font-family: ${MONOSPACE}; font-size: 14px; line-height: 1.5; white-space: pre-wrap; word-wrap: break-word; overflow-wrap: anywhere; }
.post-body pre code { background: transparent; padding: 0; font-size: 14px; border-radius: 0; white-space: pre-wrap; }
.post-body table { border-collapse: collapse; margin: 16px 0; max-width: 100%; }
.post-body th, .post-body td { border: 1px solid ${colours.line}; padding: 6px 12px; }
.post-body th { background: ${colours.codeBg}; }
.post-body .hljs-comment, .post-body .hljs-quote { color: #57606a; font-style: italic; }
.post-body .hljs-keyword, .post-body .hljs-doctag, .post-body .hljs-type, .post-body .hljs-template-tag { color: #cf222e; }
.post-body .hljs-title { color: #6f42c1; }
.post-body .hljs-attr, .post-body .hljs-attribute, .post-body .hljs-literal, .post-body .hljs-meta, .post-body .hljs-number, .post-body .hljs-variable { color: #005cc5; }
.post-body .hljs-string, .post-body .hljs-regexp { color: #0a3069; }
.post-body .hljs-built_in, .post-body .hljs-symbol { color: #953800; }
.post-body .hljs-name, .post-body .hljs-selector-tag { color: #116329; }
.post-body .hljs-addition { color: #116329; background: #dafbe1; }
.post-body .hljs-deletion { color: #82071e; background: #ffebe9; }
@media (prefers-color-scheme: dark) {
  .mail-title, .post-body h1, .post-body h2, .post-body h3, .post-body h4, .post-body h5, .post-body h6, .post-body a.header-anchor { color: #e2e8f0 !important; }
  .post-body blockquote { color: #94a3b8 !important; border-left-color: #334155 !important; }
  .post-body pre, .post-body code, .post-body th { background: #0d1117 !important; color: #e2e8f0 !important; border-color: #334155 !important; }
  .post-body pre code { background: transparent !important; }
  .post-body td, .post-body hr { border-color: #334155 !important; }
  .post-body .hljs-comment, .post-body .hljs-quote { color: #8b949e !important; }
  .post-body .hljs-keyword, .post-body .hljs-doctag, .post-body .hljs-type, .post-body .hljs-template-tag { color: #ff7b72 !important; }
  .post-body .hljs-title { color: #d2a8ff !important; }
  .post-body .hljs-attr, .post-body .hljs-attribute, .post-body .hljs-literal, .post-body .hljs-meta, .post-body .hljs-number, .post-body .hljs-variable { color: #79c0ff !important; }
  .post-body .hljs-string, .post-body .hljs-regexp { color: #a5d6ff !important; }
  .post-body .hljs-built_in, .post-body .hljs-symbol { color: #ffa657 !important; }
  .post-body .hljs-name, .post-body .hljs-selector-tag { color: #7ee787 !important; }
}`;

const styles = {
  cover: {
    width: "100%",
    maxWidth: "600px",
    height: "auto",
    borderRadius: "10px",
    margin: "0 0 24px",
  },
  title: { fontSize: "30px", lineHeight: "1.25", margin: "0 0 8px", color: colours.text },
  byline: { fontSize: "15px", margin: "0 0 28px", color: colours.muted },
  read: { fontSize: "17px", fontWeight: 700, margin: "32px 0 0" },
  link: { color: colours.accent, textDecoration: "underline" },
  footerLink: { color: colours.muted, textDecoration: "underline" },
  intro: { fontSize: "17px", margin: "0 0 24px" },
};

export interface PostMailProps {
  siteTitle: string;
  title: string;
  author: string;
  cover: { url: string; alt: string } | undefined;
  /** The post's stored, sanitized HTML with this site's own addresses made absolute. */
  bodyHtml: string;
  /** The line a mail client shows after the subject. */
  preview: string;
  /** The post's page: to read it there and comment. */
  readUrl: string;
  /** Why this reader gets it. */
  why: string;
  unsubscribeUrl: string;
}

/** A post mailed to a subscriber: cover, title, byline, the whole body, and the way out. */
export function PostMail(props: PostMailProps) {
  return (
    <MailLayout
      title={props.title}
      preview={props.preview}
      css={POST_BODY_CSS}
      footer={
        <>
          {props.why} No opens or clicks are tracked.{" "}
          <Link href={props.unsubscribeUrl} style={styles.footerLink}>
            Unsubscribe
          </Link>
        </>
      }
    >
      {props.cover ? (
        <Img src={props.cover.url} alt={props.cover.alt} width="600" style={styles.cover} />
      ) : null}
      <Heading as="h1" className="mail-title" style={styles.title}>
        {props.title}
      </Heading>
      <Text className="mail-muted" style={styles.byline}>
        By {props.author}
      </Text>
      <div className="post-body" dangerouslySetInnerHTML={{ __html: props.bodyHtml }} />
      <Text style={styles.read}>
        <Link href={props.readUrl} style={styles.link}>
          Read it on {props.siteTitle} and join the conversation
        </Link>
      </Text>
    </MailLayout>
  );
}

export interface ConfirmationMailProps {
  subject: string;
  intro: string;
  confirmUrl: string;
}

/** The double opt-in's mail: what was asked, and the link that confirms it. */
export function ConfirmationMail(props: ConfirmationMailProps) {
  return (
    <MailLayout
      title={props.subject}
      preview={props.intro}
      footer="No opens or clicks are tracked."
    >
      <Text style={styles.intro}>{props.intro}</Text>
      <Text style={styles.read}>
        <Link href={props.confirmUrl} style={styles.link}>
          Confirm your subscription
        </Link>
      </Text>
    </MailLayout>
  );
}

export const renderPostMail = (props: PostMailProps) => renderMail(<PostMail {...props} />);

export const renderConfirmationMail = (props: ConfirmationMailProps) =>
  renderMail(<ConfirmationMail {...props} />);
