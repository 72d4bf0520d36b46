import type { MailMessage } from "./mailer.js";

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => `&#${String(c.codePointAt(0))};`);

function linkMail(
  to: string,
  subject: string,
  intro: string,
  action: string,
  link: string,
): MailMessage {
  const text = `${intro}\n\n${action}: ${link}\n`;
  const html =
    `<p>${escapeHtml(intro)}</p>` +
    `<p><a href="${escapeHtml(link)}">${escapeHtml(action)}</a></p>` +
    `<p>${escapeHtml(link)}</p>`;
  return { to, subject, text, html, link };
}

export const verificationMail = (to: string, username: string, link: string, site: string) =>
  linkMail(
    to,
    `Verify your email for ${site}`,
    `Hello ${username}, please confirm this e-mail address to finish signing up to ${site}.`,
    "Verify your email",
    link,
  );

export const passwordResetMail = (to: string, username: string, link: string, site: string) =>
  linkMail(
    to,
    `Reset your ${site} password`,
    `Hello ${username}, someone asked to reset your password. The link works once and expires in one hour. If it was not you, ignore this mail.`,
    "Reset your password",
    link,
  );
