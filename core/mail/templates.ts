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
    `Hello ${username}, someone asked to reset your password. The link works once and expires in one hour. A new password signs you out on every device and revokes your API tokens (make new ones afterwards). If it was not you, ignore this mail.`,
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

/** What changed in an account's security, for the notice its owner is mailed (decision 024). */
export type SecurityChange =
  | "two-factor-on"
  | "two-factor-off"
  | "passkey-added"
  | "passkey-removed"
  | "password-changed"
  | "recovery-code-used"
  | "token-created";

/** Each change's subject and words, and whether its mail leads to the API tokens' list. */
const SECURITY_CHANGES: Record<
  SecurityChange,
  { subject: string; what: string; where?: "tokens" }
> = {
  "two-factor-on": {
    subject: "Two-factor sign-in is on",
    what: "two-factor sign-in was turned on for your account: signing in now also asks for a code from your authenticator app",
  },
  "two-factor-off": {
    subject: "Two-factor sign-in is off",
    what: "two-factor sign-in was turned off for your account: a password alone signs in again",
  },
  "passkey-added": {
    subject: "A passkey was added",
    what: "a passkey was added to your account",
  },
  "passkey-removed": {
    subject: "A passkey was removed",
    what: "a passkey was removed from your account: it no longer signs in",
  },
  "password-changed": {
    subject: "Your password changed",
    what: "the password of your account was changed",
  },
  "recovery-code-used": {
    subject: "A recovery code was used",
    what: "one of your recovery codes was used to sign in to your account",
  },
  "token-created": {
    subject: "A new API token",
    what: "an API token was created for your account: it acts as you without your password",
    where: "tokens",
  },
};

/** Tells the owner about a change to how their account signs in, with a way back if it was not them. */
export function securityNoticeMail(
  to: string,
  username: string,
  site: string,
  change: SecurityChange,
  detail: string | undefined,
  links: { settings: string; tokens: string; reset: string },
): MailMessage {
  const { subject, what, where } = SECURITY_CHANGES[change];
  const lines = [
    `Hello ${username}, ${what} on ${site}${detail ? ` (${detail})` : ""}.`,
    where === "tokens"
      ? `If it was you, there is nothing to do. If it was not, reset your password now (it signs out every session and revokes every token) and look at your tokens: ${links.tokens}`
      : `If it was you, there is nothing to do. If it was not, reset your password now (it signs out every session) and look at your security settings: ${links.settings}`,
  ];
  const text = `${lines.join("\n\n")}\n\nReset your password: ${links.reset}\n`;
  const html =
    lines.map((line) => `<p>${escapeHtml(line)}</p>`).join("") +
    `<p><a href="${escapeHtml(links.reset)}">Reset your password</a></p>`;
  return { to, subject: `${subject} on ${site}`, text, html, link: links.reset };
}
