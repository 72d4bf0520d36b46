import { mkdir, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import type nodemailerModule from "nodemailer";
import { newId } from "../shared/ids.js";
import { lazyModule } from "../shared/lazy-module.js";

const nodemailer = lazyModule<typeof nodemailerModule>("nodemailer");

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** The link the message carries, for the outbox log line. */
  link: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

export interface MailerOptions {
  smtpUrl?: string | undefined;
  from: string;
  outboxDir: string;
  /** Told about each outbox message so a fresh install can finish sign-up from the console. */
  onOutbox?: (file: string, message: MailMessage) => void;
}

const outboxTransport = () => nodemailer().createTransport({ streamTransport: true, buffer: true });

export function createMailer(options: MailerOptions): Mailer {
  const { smtpUrl } = options;
  if (smtpUrl) {
    let transport: ReturnType<typeof nodemailerModule.createTransport> | undefined;
    return {
      async send({ to, subject, text, html }) {
        transport ??= nodemailer().createTransport(smtpUrl);
        await transport.sendMail({ from: options.from, to, subject, text, html });
      },
    };
  }
  let builder: ReturnType<typeof outboxTransport> | undefined;
  return {
    async send(message) {
      const { to, subject, text, html } = message;
      builder ??= outboxTransport();
      const info = await builder.sendMail({ from: options.from, to, subject, text, html });
      await mkdir(options.outboxDir, { recursive: true });
      const name = `${new Date().toISOString().replace(/[:.]/g, "-")}-${newId()}.eml`;
      const file = path.join(options.outboxDir, name);
      // Written aside then renamed, so a reader never sees half a message.
      await writeFile(`${file}.tmp`, info.message);
      await rename(`${file}.tmp`, file);
      options.onOutbox?.(file, message);
    },
  };
}
