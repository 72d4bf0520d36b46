import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Clock } from "../../core/shared/clock.js";
import { buildUser, signInAdmin, type TestUser } from "../support/factories.js";
import { client } from "../support/http.js";
import { addCategory, addPost } from "../support/post-fixtures.js";
import { startRelay } from "../support/smtp-relay.js";
import { openTestSite } from "../support/site.js";
import { startTestServer } from "../support/test-server.js";

// E-mail about conversations (DESIGN.md 9, decision 017): the settings switch, the outbox that
// gathers what is new into at most one mail per person per 10 minutes, and the one-click
// unsubscribe. The server's clock is this file's: a test moves it past the first mail's short
// delay and past the 10-minute window, and the outbox (checking every 50 ms) sends what is due.

let now = Date.now();
const clock: Clock = () => new Date(now);
const advance = (minutes: number) => {
  now += minutes * 60_000;
};

const { server, api, admin } = await openTestSite({
  app: { clock, outboxCheckMs: 50 },
  categories: ["General"],
});

interface Mail {
  file: string;
  to: string;
  subject: string;
  headers: Map<string, string>;
  body: string;
  links: string[];
}

/** A header as written: RFC 2047 encoded words (nodemailer's long subjects) decoded. */
const decodeWords = (value: string) =>
  value
    .replace(/\?=\s+=\?/g, "?==?")
    .replace(/=\?UTF-8\?([QB])\?([^?]*)\?=/gi, (_match, kind: string, text: string) =>
      kind.toUpperCase() === "B"
        ? Buffer.from(text, "base64").toString("utf8")
        : Buffer.from(
            text
              .replace(/_/g, " ")
              .replace(/=([0-9A-F]{2})/gi, (_hex, hex: string) =>
                String.fromCharCode(parseInt(hex, 16)),
              ),
            "latin1",
          ).toString("utf8"),
    );

/** Every mail in the outbox with its headers unfolded and its body decoded (quoted-printable). */
async function outbox(): Promise<Mail[]> {
  const dir = path.join(server.dataDir, "mail");
  const names = (await readdir(dir).catch(() => [])).filter((name) => name.endsWith(".eml")).sort();
  return Promise.all(
    names.map(async (file) => {
      const raw = await readFile(path.join(dir, file), "utf8");
      const split = raw.indexOf("\r\n\r\n");
      const headers = new Map<string, string>();
      for (const line of raw
        .slice(0, split)
        .replace(/\r\n[ \t]+/g, " ")
        .split("\r\n")) {
        const colon = line.indexOf(":");
        headers.set(line.slice(0, colon).toLowerCase(), decodeWords(line.slice(colon + 1).trim()));
      }
      const body = Buffer.from(
        raw
          .slice(split)
          .replace(/=\r?\n/g, "")
          .replace(/=([0-9A-F]{2})/g, (_match, hex: string) =>
            String.fromCharCode(parseInt(hex, 16)),
          ),
        "latin1",
      ).toString("utf8");
      return {
        file,
        to: headers.get("to") ?? "",
        subject: headers.get("subject") ?? "",
        headers,
        body,
        links: [...new Set(body.match(/https?:\/\/[^\s"<>]+/g) ?? [])],
      };
    }),
  );
}

/** Conversation mail to `user` (not the notice of a suspension, which is not conversation mail). */
const mailsTo = async (user: TestUser) =>
  (await outbox()).filter(
    (mail) => mail.to.includes(user.email) && !mail.subject.includes("account is suspended"),
  );

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `user` has `count` mails; the outbox checks every 50 ms. */
async function waitForMails(user: TestUser, count: number) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const mails = await mailsTo(user);
    if (mails.length >= count) return mails;
    if (Date.now() > deadline) {
      throw new Error(`${user.username} has ${String(mails.length)} mails, not ${String(count)}`);
    }
    await sleep(50);
  }
}

/** Enough for the outbox to have checked several times. */
const settle = () => sleep(400);

async function writer() {
  const user = await buildUser(server, api);
  const post = await addPost(api, user, { category: "General", title: `Post of ${user.username}` });
  return { user, post };
}

async function comment(user: TestUser, postId: string, text: string, parentId?: string) {
  const reply = await api.post<{ _id: string }>(
    "/api/comments",
    { text, postId, ...(parentId ? { parentId } : {}) },
    { token: user.token },
  );
  expect(reply.status, reply.text).toBe(201);
  return reply.body._id;
}

const settingsOf = (user: TestUser) =>
  api.get<{ emailNotifications: boolean }>("/api/users/me/settings", { token: user.token });

const setMail = (user: TestUser, on: boolean) =>
  api.put("/api/users/me/settings", { emailNotifications: on }, { token: user.token });

describe("GET, PUT /api/users/me/settings", () => {
  it("needs a session: 401", async () => {
    expect((await api.get("/api/users/me/settings")).status).toBe(401);
    const put = await api.put("/api/users/me/settings", { emailNotifications: false });
    expect(put.status).toBe(401);
  });

  it("400 for anything but a boolean, and nothing stored", async () => {
    const user = await buildUser(server, api);
    for (const body of [{}, { emailNotifications: "false" }, { emailNotifications: 0 }, []]) {
      const reply = await api.put<{ message: string }>("/api/users/me/settings", body, {
        token: user.token,
      });
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body.message).toMatch(/emailNotifications must be true or false|JSON object/);
    }
    expect((await settingsOf(user)).body).toEqual({ emailNotifications: true });
  });

  it("is on by default, and keeps what the person chose", async () => {
    const user = await buildUser(server, api);
    expect((await settingsOf(user)).body).toEqual({ emailNotifications: true });
    const off = await setMail(user, false);
    expect(off.status, off.text).toBe(200);
    expect(off.body).toEqual({ emailNotifications: false });
    expect((await settingsOf(user)).body).toEqual({ emailNotifications: false });
    // One person's choice is theirs alone.
    const other = await buildUser(server, api);
    expect((await settingsOf(other)).body).toEqual({ emailNotifications: true });
    expect((await setMail(user, true)).body).toEqual({ emailNotifications: true });
  });
});

describe("mail about a comment on your post", () => {
  it("goes after a short delay, once, with the unsubscribe link and headers (RFC 8058)", async () => {
    const { user: author, post } = await writer();
    const reader = await buildUser(server, api);
    const id = await comment(reader, post._id, "What a lovely read.");
    await settle();
    expect(await mailsTo(author), "mailed before the short delay").toHaveLength(0);

    advance(2);
    const [mail] = await waitForMails(author, 1);
    if (!mail) throw new Error("no mail");
    expect(mail.subject).toContain(reader.username);
    expect(mail.subject).toContain(post.title);
    expect(mail.body).toContain("What a lovely read.");
    expect(mail.links).toContain(`${server.url}/posts/details/${post._id}#comment-${id}`);

    const unsubscribe = mail.headers.get("list-unsubscribe") ?? "";
    const oneClick = /^<(https?:\/\/[^>]+)>$/.exec(unsubscribe)?.[1] ?? "";
    expect(oneClick).toMatch(
      new RegExp(`^${server.url}/api/unsubscribe/${author.id}/[\\w-]{20,}$`),
    );
    expect(mail.headers.get("list-unsubscribe-post")).toBe("List-Unsubscribe=One-Click");
    const page = mail.links.find((link) => link.includes("/unsubscribe/"));
    expect(page).toBe(oneClick.replace("/api/unsubscribe/", "/unsubscribe/"));

    // Sent once: more checks, and later, send nothing more.
    advance(30);
    await settle();
    expect(await mailsTo(author)).toHaveLength(1);
    // The commenter is not mailed about their own comment.
    expect(await mailsTo(reader)).toHaveLength(0);
  });

  it("gathers what comes within 10 minutes of the last mail into one mail", async () => {
    const { user: author, post } = await writer();
    const first = await buildUser(server, api);
    const second = await buildUser(server, api);
    const third = await buildUser(server, api);
    await comment(first, post._id, "First!");
    advance(2);
    await waitForMails(author, 1);

    await comment(second, post._id, "Second thoughts.");
    advance(1);
    await comment(third, post._id, "Third time lucky.");
    advance(3);
    await settle();
    expect(await mailsTo(author), "a second mail inside the window").toHaveLength(1);

    advance(6);
    const mails = await waitForMails(author, 2);
    const gathered = mails[1];
    if (!gathered) throw new Error("no second mail");
    expect(gathered.subject).toContain("2 new comments");
    expect(gathered.body).toContain("Second thoughts.");
    expect(gathered.body).toContain("Third time lucky.");
    expect(gathered.body).not.toContain("First!");
    await settle();
    expect(await mailsTo(author)).toHaveLength(2);
  });

  it("never tells you of your own comments", async () => {
    const { user: author, post } = await writer();
    const reader = await buildUser(server, api);
    await comment(author, post._id, "Thanks for reading, all.");
    await comment(reader, post._id, "A question from a reader.");
    advance(2);
    const [mail] = await waitForMails(author, 1);
    expect(mail?.body).toContain("A question from a reader.");
    expect(mail?.body).not.toContain("Thanks for reading, all.");
    expect(mail?.subject).toContain(reader.username);
  });

  it("tells the author of the comment replied to, as a reply", async () => {
    const { user: author, post } = await writer();
    const first = await buildUser(server, api);
    const answerer = await buildUser(server, api);
    const thread = await comment(first, post._id, "A thought to start.");
    advance(11);
    await waitForMails(author, 1);

    await comment(answerer, post._id, "An answer to the thought.", thread);
    advance(11);
    const [mail] = await waitForMails(first, 1);
    expect(mail?.subject).toContain(`${answerer.username} replied to your comment`);
    expect(mail?.body).toContain("An answer to the thought.");
    // The post's author hears of it too, as a new comment on their post.
    const toAuthor = await waitForMails(author, 2);
    expect(toAuthor[1]?.body).toContain("An answer to the thought.");
    expect(await mailsTo(answerer)).toHaveLength(0);
  });

  it("leaves out a comment deleted before the mail goes", async () => {
    const { user: author, post } = await writer();
    const reader = await buildUser(server, api);
    const regretted = await comment(reader, post._id, "Something I regret.");
    await comment(reader, post._id, "Something I stand by.");
    const deleted = await api.delete(`/api/comments/${regretted}`, { token: reader.token });
    expect(deleted.status, deleted.text).toBe(200);
    advance(2);
    const [mail] = await waitForMails(author, 1);
    expect(mail?.body).toContain("Something I stand by.");
    expect(mail?.body).not.toContain("Something I regret.");
  });
});

describe("who gets nothing", () => {
  it("a person who turned the mail off, also when they turn it off after the comment", async () => {
    const { user: quiet, post } = await writer();
    const { user: lateQuiet, post: otherPost } = await writer();
    const reader = await buildUser(server, api);
    expect((await setMail(quiet, false)).status).toBe(200);
    const onQuiet = await comment(reader, post._id, "You will not hear of this.");
    await comment(reader, otherPost._id, "Nor of this.");
    expect((await setMail(lateQuiet, false)).status).toBe(200);
    // A control that is mailed: someone answering the reader on the quiet author's post.
    const talker = await buildUser(server, api);
    await comment(talker, post._id, "Replying to the reader.", onQuiet);
    advance(2);
    await waitForMails(reader, 1);
    await settle();
    expect(await mailsTo(quiet)).toHaveLength(0);
    expect(await mailsTo(lateQuiet)).toHaveLength(0);
  });

  it("a suspended person", async () => {
    const { user: suspended, post } = await writer();
    const reader = await buildUser(server, api);
    const talker = await buildUser(server, api);
    const thread = await comment(reader, post._id, "Hello there.");
    const put = await api.put(
      `/api/users/suspend/${suspended.id}`,
      { suspended: true },
      { token: admin.token },
    );
    expect(put.status, put.text).toBe(200);
    await comment(talker, post._id, "Hello back.", thread);
    advance(2);
    await waitForMails(reader, 1);
    await settle();
    expect(await mailsTo(suspended)).toHaveLength(0);
  });
});

describe("a suspension and its restore (decision 013)", () => {
  const setSuspended = async (user: TestUser, suspended: boolean) => {
    const reply = await api.put(
      `/api/users/suspend/${user.id}`,
      { suspended },
      { token: admin.token },
    );
    expect(reply.status, reply.text).toBe(200);
  };

  /** Waits (generously: CI runs heavy files beside this) until `found` finds its row. */
  async function waitForRow(what: string, found: () => Promise<unknown>) {
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      if (await found()) return;
      await sleep(50);
    }
    throw new Error(`no ${what}`);
  }

  /** Waits until the outbox has given up on a mail to `user`: nothing left to tell them. */
  const mailSkipped = (user: TestUser) =>
    waitForRow(`skipped mail to ${user.username}`, () =>
      server.app.deps.db
        .selectFrom("outbox")
        .select("id")
        .where("channel", "=", "mail")
        .where("recipient_id", "=", user.id)
        .where("status", "=", "skipped")
        .executeTakeFirst(),
    );

  /**
   * Waits until the comment's event was dispatched into a mail waiting for `user`. A suspension
   * before that dispatch queues nothing at all (the recipient is muted), so no mail is skipped.
   */
  const mailQueued = (user: TestUser) =>
    waitForRow(`mail queued for ${user.username}`, () =>
      server.app.deps.db
        .selectFrom("mail_events")
        .select("id")
        .where("recipient_id", "=", user.id)
        .executeTakeFirst(),
    );

  it("drops the mail to a person suspended before it went, and mails them at the usual pace once restored", async () => {
    const { user: author, post } = await writer();
    const reader = await buildUser(server, api);
    await comment(reader, post._id, "Written before the suspension.");
    await mailQueued(author);
    await setSuspended(author, true);
    advance(2);
    await mailSkipped(author);
    expect(await mailsTo(author)).toHaveLength(0);

    await setSuspended(author, false);
    await comment(reader, post._id, "Written after the restore.");
    advance(2);
    const [mail] = await waitForMails(author, 1);
    expect(mail?.body).toContain("Written after the restore.");
    expect(mail?.body).not.toContain("Written before the suspension.");
    // Its two waits for the worker may each take up to 30 s on a machine busy with other suites.
  }, 90_000);

  it("drops mail about a suspended person's comments, also after the restore, and holds back no other", async () => {
    const { user: author, post } = await writer();
    const spammer = await buildUser(server, api);
    const reader = await buildUser(server, api);
    await comment(spammer, post._id, "Cheap pills here.");
    await setSuspended(spammer, true);
    advance(2);
    await mailSkipped(author);
    expect(await mailsTo(author)).toHaveLength(0);

    await setSuspended(spammer, false);
    await comment(reader, post._id, "A real question.");
    advance(2);
    const [mail] = await waitForMails(author, 1);
    expect(mail?.body).toContain("A real question.");
    expect(mail?.body).not.toContain("Cheap pills here.");
    await settle();
    expect(await mailsTo(author)).toHaveLength(1);
  }, 90_000);
});

describe("a post its author takes back to drafts", () => {
  it("is named in no mail to anyone else: what was waiting to be told of it is not sent", async () => {
    const { user: author, post } = await writer();
    const reader = await buildUser(server, api);
    const talker = await buildUser(server, api);
    const thread = await comment(reader, post._id, "A thought on the post.");
    advance(11);
    await waitForMails(author, 1);

    // Answered while public; taken back and renamed before the mail goes; answered on the draft.
    await comment(talker, post._id, "An answer while it was public.", thread);
    const drafted = await api.put(
      `/api/posts/${post._id}`,
      { title: "Secret plans", category: "General", description: "Hidden.", status: "draft" },
      { token: author.token },
    );
    expect(drafted.status, drafted.text).toBe(200);
    await comment(author, post._id, "An answer on the draft.", thread);
    advance(11);
    // The author is told of the comment on their own draft, title and all.
    const [, toAuthor] = await waitForMails(author, 2);
    expect(toAuthor?.body).toContain("An answer while it was public.");
    expect(toAuthor?.subject).toContain("Secret plans");
    await settle();
    expect(await mailsTo(reader)).toHaveLength(0);
    for (const mail of await outbox()) {
      if (mail.to.includes(author.email)) continue;
      expect(`${mail.subject}\n${mail.body}`).not.toContain("Secret plans");
    }
  });
});

describe("one-click unsubscribe (RFC 8058)", () => {
  async function mailedUnsubscribe() {
    const { user: author, post } = await writer();
    const reader = await buildUser(server, api);
    await comment(reader, post._id, "Hi.");
    advance(2);
    const [mail] = await waitForMails(author, 1);
    const header = mail?.headers.get("list-unsubscribe") ?? "";
    const url = new URL(/^<([^>]+)>$/.exec(header)?.[1] ?? "");
    return { author, path: url.pathname };
  }

  const oneClick = (pathname: string) =>
    api.raw("POST", pathname, "List-Unsubscribe=One-Click", {
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });

  it("a wrong or malformed token is 404 and changes nothing", async () => {
    const { author, path: link } = await mailedUnsubscribe();
    const wrongToken = link.replace(/[^/]+$/, "A".repeat(43));
    const stranger = await buildUser(server, api);
    const otherUser = link.replace(author.id, stranger.id);
    for (const bad of [wrongToken, otherUser, `/api/unsubscribe/not-an-id/${"A".repeat(43)}`]) {
      const reply = await oneClick(bad);
      expect(reply.status, bad).toBe(404);
      expect(reply.text).toContain("This unsubscribe link is not valid");
    }
    expect((await settingsOf(author)).body).toEqual({ emailNotifications: true });
    expect((await settingsOf(stranger)).body).toEqual({ emailNotifications: true });
  });

  it("a GET changes nothing: it leads to the page with the button", async () => {
    const { author, path: link } = await mailedUnsubscribe();
    const reply = await fetch(`${server.url}${link}`, { redirect: "manual" });
    expect(reply.status).toBe(303);
    expect(reply.headers.get("location")).toBe(
      `${server.url}${link.replace("/api/unsubscribe/", "/unsubscribe/")}`,
    );
    expect((await settingsOf(author)).body).toEqual({ emailNotifications: true });
  });

  it("the POST turns the mail off without a session, and no more mail comes", async () => {
    const { author, path: link } = await mailedUnsubscribe();
    const reply = await oneClick(link);
    expect(reply.status, reply.text).toBe(200);
    expect((await settingsOf(author)).body).toEqual({ emailNotifications: false });
    // Clicking twice is harmless.
    expect((await oneClick(link)).status).toBe(200);
    // The token never reaches the log.
    const token = link.split("/").at(-1) ?? "";
    expect(server.logs.join("\n")).not.toContain(token);

    const reader = await buildUser(server, api);
    const posts = await api.get<{ _id: string }[]>(`/api/users/user/${author.id}`);
    const [post] = posts.body;
    if (!post) throw new Error("no post");
    await comment(reader, post._id, "Anyone there?");
    advance(11);
    await settle();
    expect(await mailsTo(author)).toHaveLength(1);
  });
});

describe("a mail the relay refuses", () => {
  it("is retried later, each time later still, and sent once", async () => {
    const relay = await startRelay();
    relay.refuse = 2;
    const relayed = await startTestServer(
      { SMTP_URL: `smtp://127.0.0.1:${String(relay.port)}` },
      { clock, outboxCheckMs: 50 },
    );
    try {
      const relayedApi = client(relayed.url);
      await addCategory(relayedApi, await signInAdmin(relayed, relayedApi), "General");
      const author = await buildUser(relayed, relayedApi);
      const reader = await buildUser(relayed, relayedApi);
      const post = await addPost(relayedApi, author, { category: "General" });
      const written = await relayedApi.post(
        "/api/comments",
        { text: "Knock knock.", postId: post._id },
        { token: reader.token },
      );
      expect(written.status, written.text).toBe(201);
      const row = () =>
        relayed.app.deps.db
          .selectFrom("outbox")
          .selectAll()
          .where("channel", "=", "mail")
          .executeTakeFirstOrThrow();
      const until = async (check: () => boolean) => {
        const deadline = Date.now() + 10_000;
        while (!check()) {
          if (Date.now() > deadline) throw new Error("timed out");
          await sleep(50);
        }
      };

      // A refusal is written back (the retry replacing the claim's lease) before it is logged:
      // the row is read after the log line, not as soon as the relay has refused.
      const retriesLogged = (count: number) => () =>
        relayed.logs.filter((line) => line.includes("could not send a conversation mail"))
          .length === count;

      advance(2);
      await until(() => relay.refused.length === 1);
      await until(retriesLogged(1));
      await settle();
      expect(relay.refused, "retried at once").toHaveLength(1);
      const first = await row();
      expect(first.finished_at).toBeNull();
      expect(first.attempts).toBe(1);
      expect(new Date(first.next_attempt_at ?? "").getTime()).toBe(now + 60_000);

      advance(1);
      await until(() => relay.refused.length === 2);
      await until(retriesLogged(2));
      // The next try waits twice as long.
      expect(new Date((await row()).next_attempt_at ?? "").getTime()).toBe(now + 120_000);
      advance(1);
      await settle();
      expect(relay.accepted).toHaveLength(0);
      advance(1);
      await until(() => relay.accepted.length === 1);
      await settle();
      expect(relay.accepted).toHaveLength(1);
      expect(relay.accepted[0]?.to).toBe(author.email);
      // The same message each time, so a receiver can tell a copy.
      expect(relay.refused.map((mail) => mail.messageId)).toEqual([
        relay.accepted[0]?.messageId,
        relay.accepted[0]?.messageId,
      ]);
      const done = await row();
      expect(done.finished_at).not.toBeNull();
      expect(done.status).toBe("delivered");
      expect(done.attempts).toBe(3);
      expect(relayed.logs.join("\n")).toContain("could not send a conversation mail");
    } finally {
      await relayed.close();
      await relay.close();
    }
  });
});
