import type { AddressInfo } from "node:net";
import { simpleParser, type ParsedMail } from "mailparser";
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  /** The envelope's recipients, as RCPT TO named them. */
  to: string[];
  /** The message exactly as it came over SMTP: what a DKIM check reads. */
  raw: Buffer;
  /** The same message read by mailparser: headers, the HTML part, the text part. */
  parsed: ParsedMail;
}

export interface MailReceiver {
  /** Where a server sends: `SMTP_URL`. */
  url: string;
  received: ReceivedMail[];
  /** The first mail that `find` picks, waited for; fails after `ms` naming `what`. */
  waitFor(find: (mail: ReceivedMail) => boolean, what: string, ms?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

/**
 * A real SMTP server (nodemailer's smtp-server) on a free loopback port that keeps every message
 * it accepts, raw and parsed by mailparser. Plain SMTP with no AUTH or STARTTLS, as a local relay.
 */
export async function startMailReceiver(): Promise<MailReceiver> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["AUTH", "STARTTLS"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const raw = Buffer.concat(chunks);
        simpleParser(raw).then(
          (parsed) => {
            received.push({ to: session.envelope.rcptTo.map((rcpt) => rcpt.address), raw, parsed });
            callback();
          },
          (error: unknown) => {
            callback(error instanceof Error ? error : new Error(String(error)));
          },
        );
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${String(port)}`,
    received,
    async waitFor(find, what, ms = 10_000) {
      const deadline = Date.now() + ms;
      for (;;) {
        const mail = received.find(find);
        if (mail) return mail;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close: () =>
      new Promise((resolve) => {
        server.close(resolve);
      }),
  };
}
