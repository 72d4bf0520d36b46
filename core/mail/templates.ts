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

export const emailChangeMail = (to: string, username: string, link: string, site: string) =>
  linkMail(
    to,
    `Confirm your new email for ${site}`,
    `Hello ${username}, you asked to use this address for your ${site} account. It takes effect once you open this link, which expires in one day. If it was not you, ignore this mail.`,
    "Confirm this email address",
    link,
  );

/** Sent to the address being replaced, so a takeover does not go unnoticed. */
export const emailChangeNoticeMail = (
  to: string,
  username: string,
  newEmail: string,
  link: string,
  site: string,
) =>
  linkMail(
    to,
    `Your ${site} email is changing`,
    `Hello ${username}, someone signed in to your ${site} account asked to change its e-mail address to ${newEmail}. Nothing changes until that address confirms it. If it was not you, reset your password now: it signs out every session.`,
    "Reset your password",
    link,
  );

/** Tells a member their account was suspended, why and until when, and where to answer. */
export function suspensionMail(
  to: string,
  username: string,
  site: string,
  terms: {
    reason?: string | undefined;
    until?: string | undefined;
    contact?: string | undefined;
    link: string;
  },
): MailMessage {
  const lines = [
    `Hello ${username}, an admin of ${site} suspended your account: you cannot sign in while it lasts. What you wrote stays on the site.`,
    terms.reason ? `Reason: ${terms.reason}` : "No reason was given.",
    terms.until
      ? `The suspension ends on ${terms.until.slice(0, 10)} at ${terms.until.slice(11, 16)} UTC; you can sign in again from then.`
      : "The suspension lasts until an admin lifts it.",
    terms.contact ? `To answer, write to ${terms.contact}.` : "To answer, reply to this mail.",
  ];
  const text = `${lines.join("\n\n")}\n\n${terms.link}\n`;
  const html = lines.map((line) => `<p>${escapeHtml(line)}</p>`).join("");
  return { to, subject: `Your ${site} account is suspended`, text, html, link: terms.link };
}
