import { readdir, readFile } from "node:fs/promises";
import path from "node:path";

export interface Mail {
  file: string;
  to: string;
  subject: string;
  text: string;
  links: string[];
}

/** Undoes quoted-printable: soft line breaks and =XX escapes (nodemailer uses it for long lines). */
function decodeQuotedPrintable(body: string) {
  const bytes = body
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, "latin1").toString("utf8");
}

function header(raw: string, name: string) {
  const match = new RegExp(`^${name}: (.*)$`, "mi").exec(raw);
  return match?.[1]?.trim() ?? "";
}

/** Every message in the outbox, oldest first. */
export async function readOutbox(dataDir: string): Promise<Mail[]> {
  const dir = path.join(dataDir, "mail");
  const names = (await readdir(dir).catch(() => [])).filter((name) => name.endsWith(".eml")).sort();
  return Promise.all(
    names.map(async (name) => {
      const raw = await readFile(path.join(dir, name), "utf8");
      const text = decodeQuotedPrintable(raw);
      return {
        file: name,
        to: header(raw, "To"),
        subject: header(raw, "Subject"),
        text,
        links: [...new Set(text.match(/https?:\/\/[^\s"<>]+/g) ?? [])],
      };
    }),
  );
}

/** The newest mail to an address; fails the test if none arrived. */
export async function lastMailTo(dataDir: string, address: string): Promise<Mail> {
  const wanted = address.toLowerCase();
  const mail = (await readOutbox(dataDir))
    .filter((m) => m.to.toLowerCase().includes(wanted))
    .at(-1);
  if (!mail) throw new Error(`no mail to ${address} in the outbox`);
  return mail;
}

/** The path part of the newest mailed link of a kind (verify or reset), ready to request. */
export async function mailedLink(dataDir: string, address: string, kind: "verify" | "reset") {
  const mail = await lastMailTo(dataDir, address);
  const pattern = kind === "verify" ? /\/api\/auth\/[^/]+\/verify\// : /\/reset-password\//;
  const link = mail.links.find((candidate) => pattern.test(candidate));
  if (!link) throw new Error(`no ${kind} link in the mail to ${address}`);
  return new URL(link);
}
