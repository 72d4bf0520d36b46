import { spawn } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { dkimVerify } from "mailauth";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../server/config.js";
import { pngImage } from "../support/images.js";
import { startMailReceiver, type ReceivedMail } from "../support/mail-receiver.js";
import { addPost } from "../support/post-fixtures.js";
import { failOnServerErrors } from "../support/server-errors.js";
import { openTestSite } from "../support/site.js";
import { SITE_BUILT } from "../support/test-server.js";

// The newsletter's mail as a mail client gets it (DESIGN.md 11, "Newsletters"; decision 028):
// received by a real SMTP server, read by mailparser, its DKIM signature checked by mailauth
// against a key made here, and its links followed.

const CATEGORY = "Letters";
const SITE_TITLE = "Field Notes";
const DKIM_DOMAIN = "example.com";
const DKIM_SELECTOR = "news2026";

const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const privatePem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
/** The `p=` of the selector's TXT record: the public key, DER, in base64. */
const publicKeyRecord = (key = publicKey) =>
  `v=DKIM1; k=rsa; p=${key.export({ type: "spki", format: "der" }).toString("base64")}`;

// The site reads its key from a file, as an operator's secret mount gives it.
const keyDir = await mkdtemp(path.join(os.tmpdir(), "dkim-"));
const keyFile = path.join(keyDir, "dkim.pem");
await writeFile(keyFile, privatePem, { mode: 0o600 });
const receiver = await startMailReceiver();
afterAll(async () => {
  await receiver.close();
  await rm(keyDir, { recursive: true, force: true });
});

const {
  server,
  api,
  users: { writer },
} = await openTestSite({
  env: {
    SMTP_URL: receiver.url,
    MAIL_FROM: `"${SITE_TITLE}" <news@${DKIM_DOMAIN}>`,
    SITE_TITLE,
    NEWSLETTER_RATE: "6000",
    DKIM_DOMAIN,
    DKIM_SELECTOR,
    DKIM_PRIVATE_KEY: keyFile,
  },
  app: { outboxCheckMs: 100 },
  users: ["writer"],
  categories: [CATEGORY],
});
failOnServerErrors(() => server);

/** DNS as a receiver would ask it: the selector's TXT record, and nothing else. */
const resolverFor =
  (record: string) =>
  (name: string, type: string): Promise<string[][]> =>
    name === `${DKIM_SELECTOR}._domainkey.${DKIM_DOMAIN}` && type === "TXT"
      ? Promise.resolve([[record]])
      : Promise.reject(Object.assign(new Error(`no ${type} for ${name}`), { code: "ENOTFOUND" }));

async function dkimResult(raw: Buffer | string, record = publicKeyRecord()) {
  const { results } = await dkimVerify(raw, { resolver: resolverFor(record) });
  expect(results).toHaveLength(1);
  const [result] = results;
  if (!result) throw new Error("no DKIM result");
  return result;
}

const sentTo = (address: string) => (mail: ReceivedMail) => mail.to.includes(address);

/** Subscribes `email` to the whole site and confirms it from its mailed link. */
async function subscribed(email: string) {
  expect((await api.post("/api/newsletter/subscribe", { email })).status).toBe(202);
  const mail = await receiver.waitFor(sentTo(email), `the confirmation to ${email}`);
  const [, id = "", token = ""] =
    /\/newsletter\/confirm\/([^/\s]+)\/([A-Za-z0-9_-]+)/.exec(mail.parsed.text ?? "") ?? [];
  const confirmed = await api.post(`/api/newsletter/confirm/${id}/${token}`);
  expect(confirmed.status, confirmed.text).toBe(200);
  return mail;
}

const READER = "reader@example.org";
const confirmation = await subscribed(READER);

const picture = await api.form<{ url: string }>(
  "POST",
  "/api/posts/images",
  { file: { bytes: await pngImage(320, 200), filename: "p.png" } },
  { token: writer.token },
);
expect(picture.status, picture.text).toBe(201);
const bodyImagePath = new URL(picture.body.url, server.url).pathname;

const TITLE = "Notes from the field";
const post = await addPost(api, writer, {
  title: TITLE,
  category: CATEGORY,
  imageAlt: "A blue field",
  description: [
    "Opening words with [a link out](https://example.org/page) and [one home](/about).",
    "",
    "## A heading of its own",
    "",
    "```js",
    "const answer = 42; // the line that must stay a line of code",
    "```",
    "",
    "> A quoted remark.",
    "",
    "- first item",
    "- second item",
    "",
    `![A picture in the body](${bodyImagePath})`,
  ].join("\n"),
});
const mail = await receiver.waitFor(
  (one) => sentTo(READER)(one) && one.parsed.subject === TITLE,
  "the post's mail",
);
const html = typeof mail.parsed.html === "string" ? mail.parsed.html : "";
const text = mail.parsed.text ?? "";
const readUrl = `${server.url}/posts/details/${post._id}`;
/** A header as it was written (folded lines joined), not as mailparser reads it. */
const header = (name: string) =>
  mail.parsed.headerLines
    .find((line) => line.key === name.toLowerCase())
    ?.line.replace(/\r?\n[ \t]+/g, " ")
    .slice(name.length + 1)
    .trim();
const oneClick = /^<([^>]+)>$/.exec(header("List-Unsubscribe") ?? "")?.[1];

/** Every value of one attribute in the HTML part, in order. */
const attributes = (name: string) =>
  [...html.matchAll(new RegExp(`\\s${name}="([^"]*)"`, "g"))].map((match) => match[1] ?? "");
/** The style attribute of the first `tag` element of the HTML part. */
const styleOf = (tag: string) =>
  new RegExp(`<${tag}\\b[^>]*\\sstyle="([^"]*)"`).exec(html)?.[1] ?? "";

describe("refused", () => {
  it("a start with some of the DKIM variables and not the others, naming the missing", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", "server/main.ts"], {
      env: { PATH: process.env.PATH ?? "", DKIM_DOMAIN, DKIM_SELECTOR },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(code).toBe(1);
    expect(stderr).toContain("Invalid configuration");
    expect(stderr).toContain(
      "DKIM_PRIVATE_KEY: must be set to sign mail with DKIM (DKIM_DOMAIN, DKIM_SELECTOR and DKIM_PRIVATE_KEY go together)",
    );
    expect(stderr).not.toContain("DKIM_DOMAIN:");
  });

  it("a DKIM key that is no file, no key, or no RSA key", () => {
    const problems = (key: string) => {
      try {
        loadConfig({ DKIM_DOMAIN, DKIM_SELECTOR, DKIM_PRIVATE_KEY: key });
      } catch (error) {
        if (error instanceof ConfigError) return error.problems;
        throw error;
      }
      return [];
    };
    expect(problems(path.join(keyDir, "missing.pem"))).toEqual([
      `DKIM_PRIVATE_KEY: must be a PEM private key or the path of a file holding one; cannot read ${path.join(keyDir, "missing.pem")}`,
    ]);
    expect(problems("-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----")).toEqual([
      "DKIM_PRIVATE_KEY: is not an unencrypted PEM private key (-----BEGIN PRIVATE KEY-----)",
    ]);
    const ed25519 = generateKeyPairSync("ed25519").privateKey.export({
      type: "pkcs8",
      format: "pem",
    });
    expect(problems(ed25519.toString())).toEqual(["DKIM_PRIVATE_KEY: must be an RSA private key"]);
    expect(() =>
      loadConfig({ DKIM_DOMAIN: "example", DKIM_SELECTOR, DKIM_PRIVATE_KEY: keyFile }),
    ).toThrow(/DKIM_DOMAIN: must be a domain name/);
    // The PEM text itself works too, with its line breaks written as \n as a .env file has them.
    const config = loadConfig({
      DKIM_DOMAIN,
      DKIM_SELECTOR,
      DKIM_PRIVATE_KEY: privatePem.replace(/\n/g, "\\n"),
    });
    expect(config.mail.dkim).toEqual({
      domainName: DKIM_DOMAIN,
      keySelector: DKIM_SELECTOR,
      privateKey: privatePem,
    });
    expect(loadConfig({}).mail.dkim).toBeUndefined();
  });

  it("a signature over a mail altered on the way, or checked against another key", async () => {
    const raw = mail.raw.toString("latin1");
    const body = raw.replace("Opening words", "Opening w0rds");
    expect(body).not.toBe(raw);
    expect((await dkimResult(body)).status).toMatchObject({
      result: "neutral",
      comment: "body hash did not verify",
    });
    const subject = raw.replace(`Subject: ${TITLE}`, "Subject: Notes from elsewhere");
    expect(subject).not.toBe(raw);
    expect((await dkimResult(subject)).status).toMatchObject({
      result: "fail",
      comment: "bad signature",
    });
    const other = generateKeyPairSync("rsa", { modulusLength: 2048 }).publicKey;
    expect((await dkimResult(mail.raw, publicKeyRecord(other))).status).toMatchObject({
      result: "fail",
      comment: "bad signature",
    });
  });

  it("a one-click unsubscribe whose token was changed, leaving the subscription on", async () => {
    expect(oneClick).toBeDefined();
    const changed = await fetch(`${String(oneClick)}x`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "List-Unsubscribe=One-Click",
    });
    expect(changed.status).toBe(404);
    const row = await server.app.deps.db
      .selectFrom("subscriptions")
      .select("status")
      .where("email", "=", READER)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe("active");
  });
});

describe("the post's mail", () => {
  it("carries the list headers: one-click unsubscribe (RFC 8058) and the list's id", () => {
    expect(oneClick).toMatch(
      new RegExp(`^${server.url}/newsletter/unsubscribe/[^/.]+\\.[A-Za-z0-9_-]+$`),
    );
    expect(header("List-Unsubscribe-Post")).toBe("List-Unsubscribe=One-Click");
    expect(header("List-Id")).toBe(`${SITE_TITLE} <newsletter.127.0.0.1>`);
    expect(mail.parsed.from?.text).toBe(`"${SITE_TITLE}" <news@${DKIM_DOMAIN}>`);
  });

  it("has an HTML part styled inline, element by element, as the post reads on the site", () => {
    expect(html).toMatch(/<meta name="color-scheme" content="light dark">/);
    expect(html).toMatch(/<meta name="supported-color-schemes" content="light dark">/);
    expect(html).toMatch(/@media \(prefers-color-scheme: dark\)/);
    expect(html).toContain(`>${TITLE}</h1>`);
    expect(html).toMatch(new RegExp(`>By (<!-- -->)?${writer.username}</p>`));
    // The body's own elements, from a string of HTML, carry their styles.
    expect(styleOf("h2")).toMatch(/font-size: 23px/);
    expect(styleOf("pre")).toMatch(/font-family: ui-monospace/);
    expect(styleOf("pre")).toMatch(/background: #f6f8fa/);
    expect(styleOf("pre")).toMatch(/overflow-x: auto/);
    expect(styleOf("pre")).toMatch(/white-space: pre-wrap/);
    expect(styleOf("blockquote")).toMatch(/border-left: 4px solid/);
    expect(styleOf("ul")).toMatch(/padding-left/);
    expect(html).toContain("const</span> answer");
    const bodyImage = new RegExp(
      `<img [^>]*src="${server.url}${bodyImagePath}"[^>]*style="([^"]*)"`,
    ).exec(html);
    expect(bodyImage?.[1]).toMatch(/max-width: 100%; height: auto/);
    expect(html).toContain(`href="${server.url}/about"`);
    expect(html).toContain("No opens or clicks are tracked.");
    expect(html).toContain("You get this because you subscribed to Field Notes.");
    expect(html).toMatch(
      new RegExp(
        `<a href="${readUrl}"[^>]*>Read it on (<!-- -->)?${SITE_TITLE}(<!-- -->)? and join the conversation</a>`,
      ),
    );
    expect(html).toMatch(/<a href="[^"]+\/newsletter\/unsubscribe\/[^"]+"[^>]*>Unsubscribe<\/a>/);
  });

  it("tracks nothing: images from the site alone, every link straight to where it goes", () => {
    const images = attributes("src");
    expect(images.length).toBeGreaterThanOrEqual(2);
    for (const src of images) expect(src.startsWith(`${server.url}/uploads/`), src).toBe(true);
    // The cover, whole and absolute.
    expect(html).toMatch(
      new RegExp(`<img alt="A blue field" src="${server.url}/uploads/images/[^"]+/lg\\.webp"`),
    );
    expect(attributes("href").sort()).toEqual(
      [
        "#section-a-heading-of-its-own",
        "https://example.org/page",
        `${server.url}/about`,
        readUrl,
        `${server.url}/newsletter/unsubscribe/${String(oneClick).split("/").at(-1)}`,
      ].sort(),
    );
    expect(html).not.toMatch(/utm_|width="1" height="1"|\/track|\/open/i);
  });

  it("has a text part with the post's words and every link written out", () => {
    expect(text).toContain(TITLE);
    expect(text).toContain(`By ${writer.username}`);
    expect(text).toContain("A heading of its own");
    expect(text).toContain("const answer = 42; // the line that must stay a line of code");
    expect(text).toContain("A quoted remark.");
    expect(text).toContain("a link out https://example.org/page");
    expect(text).toContain(`one home ${server.url}/about`);
    expect(text).toContain(`Read it on ${SITE_TITLE} and join the conversation ${readUrl}`);
    expect(text).toMatch(new RegExp(`Unsubscribe ${server.url}/newsletter/unsubscribe/\\S+`));
    expect(text).not.toMatch(/<[a-z]+[\s>]/);
  });

  it("is signed with DKIM, as is every other mail the site sends", async () => {
    const post = await dkimResult(mail.raw);
    expect(post.status.result).toBe("pass");
    expect(post.signingDomain).toBe(DKIM_DOMAIN);
    expect(post.selector).toBe(DKIM_SELECTOR);
    expect((await dkimResult(confirmation.raw)).status.result).toBe("pass");
    // An account's mail, written by another part of the site.
    const asked = await api.post("/api/password/reset-password-link", { email: writer.email });
    expect(asked.status, asked.text).toBe(200);
    const reset = await receiver.waitFor(sentTo(writer.email), "the password reset mail");
    expect((await dkimResult(reset.raw)).status.result).toBe("pass");
  });

  it.skipIf(!SITE_BUILT)(
    "links to the post's page and the unsubscribe page, which open",
    async () => {
      const page = await fetch(readUrl);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain(TITLE);
      const unsubscribePage = /<a href="([^"]+\/newsletter\/unsubscribe\/[^"]+)"/.exec(html)?.[1];
      expect((await fetch(String(unsubscribePage))).status).toBe(200);
    },
  );

  it("ends the subscription with one click: a POST with no cookie", async () => {
    const left = await fetch(String(oneClick), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "List-Unsubscribe=One-Click",
    });
    expect(left.status).toBe(200);
    const row = await server.app.deps.db
      .selectFrom("subscriptions")
      .select("status")
      .where("email", "=", READER)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe("unsubscribed");
  });
});
