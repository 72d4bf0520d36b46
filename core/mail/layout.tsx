import { Body } from "@react-email/body";
import { Container } from "@react-email/container";
import { Head } from "@react-email/head";
import { Hr } from "@react-email/hr";
import { Html } from "@react-email/html";
import { Preview } from "@react-email/preview";
import { render, toPlainText } from "@react-email/render";
import { Text } from "@react-email/text";
import juice from "juice";
import type { CSSProperties, ReactElement, ReactNode } from "react";

// The frame of the mails built with React Email (decision 028): the site's colours (app/styles.css
// tokens), light in inline styles, which every client keeps, and dark in a media query, which
// only some honour. Loaded on the first mail, not at start-up.

/** The site's light colours, as its stylesheet's tokens name them. */
export const colours = {
  text: "#1e293b",
  muted: "#475569",
  line: "#e2e8f0",
  page: "#ffffff",
  accent: "#1d4ed8",
  codeBg: "#f6f8fa",
};

export const fontStack =
  "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif";

/** Applied over the inline styles where a client honours it; `!important` is what lets it. */
const DARK_CSS = `
@media (prefers-color-scheme: dark) {
  .mail-page, .mail-page > table > tbody > tr > td { background: #0f172a !important; color: #e2e8f0 !important; }
  .mail-muted { color: #94a3b8 !important; }
  .mail-rule { border-top-color: #334155 !important; }
  .mail-page a { color: #93c5fd !important; }
}`;

const styles = {
  page: {
    backgroundColor: colours.page,
    color: colours.text,
    fontFamily: fontStack,
    fontSize: "17px",
    lineHeight: "1.6",
    padding: "24px 12px",
  },
  sheet: { maxWidth: "600px", margin: "0 auto" },
  rule: { borderTop: `1px solid ${colours.line}`, margin: "32px 0 16px" },
  footer: { fontSize: "13px", lineHeight: "1.5", color: colours.muted, margin: "0" },
} satisfies Record<string, CSSProperties>;

export interface MailLayoutProps {
  /** The document's title: the mail's subject. */
  title: string;
  /** What a mail client shows after the subject, before the mail is opened. */
  preview: string;
  /** More CSS whose rules are inlined into the elements they match (HTML given as a string). */
  css?: string;
  /** Small print under a rule: why the reader gets the mail and how to stop it. */
  footer?: ReactNode;
  children: ReactNode;
}

/** One column, 600 px at most, in the site's colours, light or dark as the reader's client is. */
export function MailLayout({ title, preview, css = "", footer, children }: MailLayoutProps) {
  return (
    <Html lang="en">
      <Head>
        <title>{title}</title>
        <meta name="color-scheme" content="light dark" />
        <meta name="supported-color-schemes" content="light dark" />
        <style dangerouslySetInnerHTML={{ __html: `${css}\n${DARK_CSS}` }} />
      </Head>
      <Preview>{preview}</Preview>
      <Body className="mail-page" style={styles.page}>
        <Container style={styles.sheet}>
          {children}
          {footer === undefined ? null : (
            <>
              <Hr className="mail-rule" style={styles.rule} />
              <Text className="mail-muted" style={styles.footer}>
                {footer}
              </Text>
            </>
          )}
        </Container>
      </Body>
    </Html>
  );
}

/**
 * A mail's two parts: the HTML with every rule of its `<style>` inlined (Gmail and others drop
 * `<style>` in many cases; the dark media query stays there as an extra), and plain text with
 * each link's address written after its words.
 */
export async function renderMail(mail: ReactElement) {
  // An image keeps its own width and height attributes: `height: auto` is no attribute value.
  const html = juice(await render(mail), {
    applyWidthAttributes: false,
    applyHeightAttributes: false,
  });
  const text = toPlainText(html, {
    selectors: ["h1", "h2", "h3", "h4", "h5", "h6"].map((selector) => ({
      selector,
      options: { uppercase: false },
    })),
  });
  return { html, text };
}
