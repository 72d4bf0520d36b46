import { mkdir, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import type nodemailerModule from "nodemailer";
import { newId } from "../shared/ids.js";
import { lazyModule } from "../../lib/lazy-module.js";

const nodemailer = lazyModule<typeof nodemailerModule>("nodemailer");

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** The link the message carries, for the outbox log line. */
  link: string;
  /** More headers (List-Unsubscribe). */
  headers?: Record<string, string>;
  /**
   * Names a message sent again after a crash: the same Message-ID over SMTP, and the same outbox
   * file, overwritten rather than doubled (decision 017).
   */
  key?: { id: string; date: Date };
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

/** Signs every message: nodemailer's `dkim` option. */
export interface DkimOptions {
  domainName: string;
  keySelector: string;
  /** PEM text. */
  privateKey: string;
}

export interface MailerOptions {
  smtpUrl?: string | undefined;
  from: string;
  dkim?: DkimOptions | undefined;
  outboxDir: string;
  /** Told about each outbox message so a fresh install can finish sign-up from the console. */
  onOutbox?: (file: string, message: MailMessage) => void;
}

/**
 * Without these a stalled relay held a send for up to ten minutes; a mail the outbox leased must
 * finish well within its lease (decision 017). A URL that names its own keeps them.
 */
const SMTP_TIMEOUTS = { connectionTimeout: 30_000, greetingTimeout: 30_000, socketTimeout: 60_000 };

function withTimeouts(smtpUrl: string) {
  const url = new URL(smtpUrl);
  for (const [name, ms] of Object.entries(SMTP_TIMEOUTS)) {
    if (!url.searchParams.has(name)) url.searchParams.set(name, String(ms));
  }
  return url.toString();
}

/** What nodemailer is told beyond the addresses and bodies. */
function envelopeOf(message: MailMessage, from: string) {
  const { to, subject, text, html, headers, key } = message;
  return {
    from,
    to,
    subject,
    text,
    html,
    ...(headers ? { headers } : {}),
    ...(key
      ? { messageId: `<${key.id}@${from.replace(/^.*@/, "").replace(/>.*$/, "")}>`, date: key.date }
      : {}),
  };
}

// Outbox files are signed too, so a key can be checked before any relay is set up.
const outboxTransport = (dkim: DkimOptions | undefined) =>
  nodemailer().createTransport({ streamTransport: true, buffer: true, ...(dkim ? { dkim } : {}) });

export function createMailer(options: MailerOptions): Mailer {
  const { smtpUrl, dkim } = options;
  if (smtpUrl) {
    let transport: ReturnType<typeof nodemailerModule.createTransport> | undefined;
    return {
      async send(message) {
        // A URL carries no key: the transport's defaults give every message the `dkim` option.
        transport ??= nodemailer().createTransport(
          withTimeouts(smtpUrl),
          dkim ? { dkim } : undefined,
        );
        await transport.sendMail(envelopeOf(message, options.from));
      },
    };
  }
  let builder: ReturnType<typeof outboxTransport> | undefined;
  return {
    async send(message) {
      builder ??= outboxTransport(dkim);
      const info = await builder.sendMail(envelopeOf(message, options.from));
      await mkdir(options.outboxDir, { recursive: true });
      const { id, date } = message.key ?? { id: newId(), date: new Date() };
      const name = `${date.toISOString().replace(/[:.]/g, "-")}-${id}.eml`;
      const file = path.join(options.outboxDir, name);
      // Written aside then renamed, so a reader never sees half a message.
      await writeFile(`${file}.tmp`, info.message);
      await rename(`${file}.tmp`, file);
      options.onOutbox?.(file, message);
    },
  };
}
