import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildUser, signInAdmin, type TestUser } from "../support/factories.js";
import { client, type Client } from "../support/http.js";
import { addCategory, addPost } from "../support/post-fixtures.js";
import { startRelay, type Accepted } from "../support/smtp-relay.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

// Newsletters (DESIGN.md 11, "Newsletters"; decision 028): subscribing by address with a
// confirmation mail, a post mailed once to each subscriber from the outbox, and leaving in one
// click. A relay of the tests' own receives every mail over SMTP.

let relay: Awaited<ReturnType<typeof startRelay>>;
let server: TestServer;
let api: Client;
let admin: TestUser;
let writer: TestUser;
let other: TestUser;
const CATEGORY = "Letters";
// Moved on to bring a retry's time (a minute after a refusal) now.
let offset = 0;
const CHECK_INBOX = "Check your inbox: a link there confirms your subscription";

beforeAll(async () => {
  relay = await startRelay();
  server = await startTestServer(
    { SMTP_URL: `smtp://127.0.0.1:${String(relay.port)}`, NEWSLETTER_RATE: "6000" },
    { outboxCheckMs: 100, clock: () => new Date(Date.now() + offset) },
  );
  api = client(server.url);
  admin = await signInAdmin(server, api);
  writer = await buildUser(server, api);
  other = await buildUser(server, api);
  await addCategory(api, admin, CATEGORY);
});
afterAll(async () => {
  await server.close();
  await relay.close();
});

/** A message's headers with folded lines joined, and its body with soft line breaks undone. */
const unfold = (raw: string) => raw.replace(/\r\n[ \t]+/g, " ");
const decoded = (raw: string) =>
  raw
    .replace(/=\r\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_all, hex: string) => String.fromCharCode(parseInt(hex, 16)));
const header = (mail: Accepted, name: string) =>
  new RegExp(`^${name}:\\s*(.*)$`, "im").exec(unfold(mail.raw))?.[1]?.trim();

const mailsTo = (address: string) => relay.accepted.filter((mail) => mail.to === address);
/** The mails of the post titled `title` that reached `address`. */
const postMails = (address: string, title: string) =>
  mailsTo(address).filter((mail) => header(mail, "Subject") === title);

async function until<T>(
  find: () => T | undefined,
  what: string | (() => string),
  ms = 10_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${typeof what === "string" ? what : what()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const subscribeAs = (email: string, authorId?: string, token?: string) =>
  api.post("/api/newsletter/subscribe", { email, ...(authorId ? { authorId } : {}) }, { token });

/** Subscribes `email` and confirms it from the link its mail carries. */
async function subscribed(email: string, authorId?: string) {
  const before = mailsTo(email).length;
  expect((await subscribeAs(email, authorId)).status).toBe(202);
  const mail = await until(() => mailsTo(email)[before], `a confirmation to ${email}`);
  const link = /\/newsletter\/confirm\/([^/\s"]+)\/([A-Za-z0-9_-]+)/.exec(decoded(mail.raw));
  expect(link).not.toBeNull();
  const [, id = "", token = ""] = link ?? [];
  const confirmed = await api.post(`/api/newsletter/confirm/${id}/${token}`);
  expect(confirmed.status, confirmed.text).toBe(200);
}

async function newsletterOf(postId: string, token = writer.token) {
  return api.get<{ status: string; recipients: number; delivered: number; failed: number }>(
    `/api/posts/${postId}/newsletter`,
    { token },
  );
}

describe("subscribing", () => {
  it("refuses an address that is no address, and a writer who is none", async () => {
    for (const email of ["", "not-an-address", "a@b", `${"x".repeat(300)}@example.com`]) {
      const reply = await subscribeAs(email);
      expect(reply.status, email).toBe(400);
      expect(reply.body.message).toBe("Email must be a valid email address");
    }
    expect((await api.post("/api/newsletter/subscribe", {})).status).toBe(400);
    const nobody = await subscribeAs("reader@example.com", "no-such-writer");
    expect(nobody.status).toBe(404);
    expect(nobody.body.message).toBe("Writer not found");
  });

  it("answers alike whatever the address's state, and mails at most three confirmations a day", async () => {
    const email = "twice@example.com";
    const answers = [];
    for (let i = 0; i < 5; i += 1) answers.push(await subscribeAs(email));
    for (const reply of answers) {
      expect(reply.status).toBe(202);
      expect(reply.body).toEqual({ message: CHECK_INBOX });
    }
    await until(() => (mailsTo(email).length >= 3 ? true : undefined), "three confirmations");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(mailsTo(email)).toHaveLength(3);
    // Confirmed, the address still gets the same answer (and no mail).
    await subscribed("confirmed@example.com");
    const again = await subscribeAs("confirmed@example.com");
    expect(again.body).toEqual({ message: CHECK_INBOX });
  });

  it("confirms only with the link's own token; opening the page changes nothing", async () => {
    const email = "linked@example.com";
    await subscribeAs(email);
    const mail = await until(() => mailsTo(email)[0], "a confirmation");
    const [, id = "", token = ""] =
      /\/newsletter\/confirm\/([^/\s"]+)\/([A-Za-z0-9_-]+)/.exec(decoded(mail.raw)) ?? [];
    expect((await api.post(`/api/newsletter/confirm/${id}/${token}x`)).status).toBe(404);
    expect((await api.post(`/api/newsletter/confirm/not-an-id/${token}`)).status).toBe(404);
    // (The page itself is tests/e2e's: this project serves no web build.)
    await fetch(`${server.url}/newsletter/confirm/${id}/${token}`);
    const row = await server.app.deps.db
      .selectFrom("subscriptions")
      .select("status")
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe("pending");
    expect((await api.post(`/api/newsletter/confirm/${id}/${token}`)).body).toEqual({
      message: "Your subscription is confirmed",
    });
  });

  it("subscribes a member's own verified address at once, with no mail", async () => {
    const reply = await subscribeAs(other.email, writer.id, other.token);
    expect(reply.status).toBe(202);
    expect(reply.body).toEqual({ message: "You are subscribed" });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(mailsTo(other.email)).toHaveLength(0);
  });
});

describe("a post mailed to its subscribers", () => {
  it("tells its writer and admins alone how it went", async () => {
    const post = await addPost(api, writer, { title: "Counted", category: CATEGORY });
    expect((await api.get(`/api/posts/${post._id}/newsletter`)).status).toBe(401);
    expect((await newsletterOf(post._id, other.token)).status).toBe(403);
    expect((await newsletterOf("no-such-post")).status).toBe(404);
    expect((await newsletterOf(post._id, admin.token)).status).toBe(200);
  });

  it("reaches each subscriber once, site and writer alike, with one-click unsubscribe", async () => {
    await subscribed("site-reader@example.com");
    await subscribed("writer-reader@example.com", writer.id);
    await subscribed("both@example.com");
    await subscribed("both@example.com", writer.id);
    // Pending, and subscribed to someone else: neither is mailed.
    await subscribeAs("pending@example.com");
    const elsewhere = await buildUser(server, api);
    await subscribed("elsewhere@example.com", elsewhere.id);
    const before = relay.accepted.length;

    const post = await addPost(api, writer, {
      title: "A letter <to> readers",
      category: CATEGORY,
      description: "Some **words** and a [link](/about).",
    });
    // Those of the tests above too: their site subscriptions are confirmed.
    const recipients = [
      "confirmed@example.com",
      "linked@example.com",
      "site-reader@example.com",
      "writer-reader@example.com",
      "both@example.com",
      other.email,
    ];
    await until(
      () =>
        recipients.every((to) => postMails(to, "A letter <to> readers").length > 0)
          ? true
          : undefined,
      () =>
        `the post's mails; missing: ${recipients.filter((to) => postMails(to, "A letter <to> readers").length === 0).join(", ")}; got: ${relay.accepted
          .slice(before)
          .map((m) => `${m.to} ${header(m, "Subject") ?? ""}`)
          .join(" | ")}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    const sent = relay.accepted
      .slice(before)
      .filter((mail) => header(mail, "Subject") === "A letter <to> readers");
    expect(sent.map((mail) => mail.to).sort()).toEqual([...recipients].sort());

    const mail = sent.find((one) => one.to === "site-reader@example.com");
    if (!mail) throw new Error("no mail to the site's reader");
    expect(header(mail, "Subject")).toBe("A letter <to> readers");
    expect(header(mail, "List-Unsubscribe-Post")).toBe("List-Unsubscribe=One-Click");
    expect(header(mail, "List-Id")).toMatch(/<newsletter\.127\.0\.0\.1>$/);
    expect(mail.raw).toMatch(/Content-Type: text\/plain/i);
    expect(mail.raw).toMatch(/Content-Type: text\/html/i);
    const body = decoded(mail.raw);
    expect(body).toContain(`${server.url}/about`);
    expect(body).toContain(`${server.url}/posts/details/${post._id}`);

    const status = await newsletterOf(post._id);
    expect(status.body).toMatchObject({ status: "sent", recipients: 6, delivered: 6, failed: 0 });

    // Edited, unpublished and published again: never mailed twice.
    const count = relay.accepted.length;
    expect(
      (await api.put(`/api/posts/${post._id}`, { status: "draft" }, { token: writer.token }))
        .status,
    ).toBe(200);
    expect(
      (await api.put(`/api/posts/${post._id}`, { status: "published" }, { token: writer.token }))
        .status,
    ).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(relay.accepted.length).toBe(count);

    // One click: a POST with no cookie ends the subscription; a GET changed nothing before it.
    const oneClick = /<([^>]+)>/.exec(header(mail, "List-Unsubscribe") ?? "")?.[1] ?? "";
    expect(oneClick).toContain("/newsletter/unsubscribe/");
    const path = new URL(oneClick).pathname;
    await fetch(`${server.url}${path}`);
    const still = await server.app.deps.db
      .selectFrom("subscriptions")
      .select("status")
      .where("email", "=", "site-reader@example.com")
      .executeTakeFirstOrThrow();
    expect(still.status).toBe("active");
    const bad = await fetch(`${server.url}${path}x`, { method: "POST" });
    expect(bad.status).toBe(404);
    const left = await fetch(`${server.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "List-Unsubscribe=One-Click",
    });
    expect(left.status).toBe(200);
    expect(await left.json()).toEqual({
      message: "You are unsubscribed: no more posts will be e-mailed to you",
    });
    const next = await addPost(api, writer, { title: "After leaving", category: CATEGORY });
    await until(() => postMails("both@example.com", "After leaving")[0], "next");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(postMails("site-reader@example.com", "After leaving").length > 0).toBe(false);
    expect((await newsletterOf(next._id)).body).toMatchObject({ recipients: 5 });
  });

  it("is not mailed when its writer says none", async () => {
    const post = await addPost(api, writer, {
      title: "Quiet",
      category: CATEGORY,
      newsletter: "none",
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(relay.accepted.filter((mail) => header(mail, "Subject") === "Quiet")).toEqual([]);
    // Not sent: how many it would go to now (the five of the last mailing), as the editor says.
    expect((await newsletterOf(post._id)).body).toMatchObject({
      status: "not_sent",
      recipients: 5,
    });
    const bad = await addPostRaw("maybe");
    expect(bad.status).toBe(400);
  });

  it("follows the site's default when the writer does not say", async () => {
    const settingsPut = (newsletterDefault: unknown) =>
      api.put<{ message: string; errors?: Record<string, string> }>(
        "/api/admin/settings",
        {
          title: "Blog",
          welcome: "Welcome",
          contactPhone: "+1 555 0100",
          contactEmail: "hello@example.com",
          newsletterDefault,
        },
        { token: admin.token },
      );
    const refused = await settingsPut("sometimes");
    expect(refused.status).toBe(400);
    expect(refused.body.errors?.newsletterDefault).toBe(
      'Newsletter default must be "send" or "none"',
    );
    expect((await settingsPut("none")).status).toBe(200);
    expect(
      (await api.get<{ newsletterDefault: string }>("/api/settings")).body.newsletterDefault,
    ).toBe("none");
    const quiet = await addPost(api, writer, { title: "Quiet by default", category: CATEGORY });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(relay.accepted.filter((mail) => header(mail, "Subject") === "Quiet by default")).toEqual(
      [],
    );
    // Saved without it, the setting stays; "send" again for the rest of the file.
    expect((await settingsPut(undefined)).status).toBe(200);
    expect(
      (await api.get<{ newsletterDefault: string }>("/api/settings")).body.newsletterDefault,
    ).toBe("none");
    expect((await settingsPut("send")).status).toBe(200);
    expect((await newsletterOf(quiet._id)).body).toMatchObject({ status: "not_sent" });
  });

  it("sends a test e-mail of a draft to its writer alone", async () => {
    const draft = await addPost(api, writer, {
      title: "Not yet out",
      category: CATEGORY,
      status: "draft",
    });
    const test = (id: string, token?: string) =>
      api.post<{ message: string }>(`/api/posts/${id}/newsletter/test`, undefined, { token });
    expect((await test(draft._id)).status).toBe(401);
    expect((await test("00000000-0000-4000-8000-000000000000", writer.token)).status).toBe(404);
    expect((await test(draft._id, other.token)).status).toBe(403);
    const before = relay.accepted.length;
    const sent = await test(draft._id, writer.token);
    expect(sent.status, sent.text).toBe(202);
    expect(sent.body.message).toBe("A test e-mail is on its way to your inbox");
    const mail = await until(
      () => relay.accepted.find((m) => header(m, "Subject") === "[Test] Not yet out"),
      "the test mail",
    );
    expect(mail.to).toBe(writer.email.toLowerCase());
    expect(decoded(mail.raw)).toContain("This is a test");
    // It went to the writer alone, and the draft is still unmailed and unpublished.
    expect(relay.accepted.slice(before).map((m) => m.to)).toEqual([mail.to]);
    expect((await newsletterOf(draft._id)).body).toMatchObject({ status: "not_sent" });
    // Until it is out, its JSON says what publishing will do; once out, no more.
    const own = await api.get<{ newsletter?: string }>(`/api/posts/${draft._id}`, {
      token: writer.token,
    });
    expect(own.body.newsletter).toBe("send");
    const published = await addPost(api, writer, {
      title: "Out, unmailed",
      category: CATEGORY,
      newsletter: "none",
    });
    const out = await api.get<{ newsletter?: string }>(`/api/posts/${published._id}`);
    expect(out.body).not.toHaveProperty("newsletter");
  });

  it("tries a refused mail again, and stops mailing an address that bounced", async () => {
    const bouncing = "gone@example.com";
    await subscribed(bouncing, writer.id);
    relay.bounce.add(bouncing);
    relay.refuse = 1;
    const post = await addPost(api, writer, { title: "Bounce one", category: CATEGORY });
    await until(() => relay.bounced.find((m) => m.to === bouncing), "the bounce");
    // The first mail tried was refused for now (451): it goes again a minute later, once.
    const refused = await until(() => relay.refused[0], "the refusal");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(postMails(refused.to, "Bounce one")).toHaveLength(0);
    offset += 2 * 60_000;
    await until(() => postMails(refused.to, "Bounce one")[0], "the refused mail sent again");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(relay.refused).toHaveLength(1);
    expect(postMails(refused.to, "Bounce one")).toHaveLength(1);
    const row = await server.app.deps.db
      .selectFrom("subscriptions")
      .select("status")
      .where("email", "=", bouncing)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe("bounced");
    const status = await newsletterOf(post._id);
    expect(status.body).toMatchObject({ failed: 1 });
    relay.bounce.delete(bouncing);
    await addPost(api, writer, { title: "Bounce two", category: CATEGORY });
    await until(() => postMails(other.email, "Bounce two")[0], "next post");
    expect(postMails(bouncing, "Bounce two").length > 0).toBe(false);
    // Subscribing again is answered alike, and sends nothing to a bounced address.
    const count = mailsTo(bouncing).length;
    expect((await subscribeAs(bouncing, writer.id)).body).toEqual({ message: CHECK_INBOX });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(mailsTo(bouncing)).toHaveLength(count);
  });
});

async function addPostRaw(newsletter: string) {
  const form = new FormData();
  form.set("title", "Odd");
  form.set("category", CATEGORY);
  form.set("description", "Words");
  form.set("newsletter", newsletter);
  const response = await fetch(`${server.url}/api/posts`, {
    method: "POST",
    headers: { authorization: `Bearer ${writer.token}` },
    body: form,
  });
  return { status: response.status };
}
