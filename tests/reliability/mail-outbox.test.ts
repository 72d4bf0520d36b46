import path from "node:path";
import { describe, expect, it } from "vitest";
import { seedDemo } from "../../bench/seed.js";
import { queueConversationMail } from "../../core/conversation-mail/queue.js";
import { createLocalStorage } from "../../core/media/storage.js";
import { HOUR_MS } from "../../core/shared/clock.js";
import { startRelay, type Accepted } from "../support/smtp-relay.js";
import { freePort } from "../support/test-server.js";
import { processSites, type ProcessSite } from "../support/process-sites.js";

// The conversation-mail outbox (decision 017) with real server processes and a real SMTP
// conversation: a server killed (SIGKILL) while a relay holds one of its mails, then restarted,
// delivers every queued mail and none twice; two servers sending from one outbox never send a
// mail twice. The relay here is a small SMTP server of the test's own that counts what it accepted.

const sites = processSites("mail");

/** A fresh site with members and talk. */
const freshSite = () =>
  sites.freshSite((db, dataDir) =>
    seedDemo(db, createLocalStorage(path.join(dataDir, "uploads"), "/uploads"), {
      users: 16,
      categories: 1,
      posts: 16,
      likes: 0,
      comments: 60,
    }),
  );

/**
 * Queues the mail of every seeded comment, as if written an hour ago (so every mail is due now),
 * and returns the addresses that are owed exactly one mail each.
 */
async function queueMail(site: ProcessSite) {
  return sites.withDatabase(site, async (db) => {
    const past = new Date(Date.now() - HOUR_MS);
    const comments = await db.selectFrom("comments").select("id").execute();
    for (const { id } of comments) {
      const comment = { commentId: id, repliedTo: null };
      const write = await queueConversationMail({ db }, comment, past);
      if (write) await db.transaction().execute(write);
    }
    const owed = await db
      .selectFrom("mail_digests")
      .innerJoin("users", "users.id", "mail_digests.recipient_id")
      .select("users.email")
      .where("mail_digests.due_at", "is not", null)
      .execute();
    return owed.map((row) => row.email).sort();
  });
}

const outboxRows = (site: ProcessSite) => sites.outboxRows(site, "mail");

const start = (site: ProcessSite, port: number, relayPort: number) =>
  sites.start(site, port, { SMTP_URL: `smtp://127.0.0.1:${String(relayPort)}` });

async function waitFor(check: () => boolean | Promise<boolean>, what: string, ms = 30_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Each owed address got exactly one mail, and no mail was accepted twice. */
function expectOncePerPerson(accepted: Accepted[], owed: string[]) {
  expect(accepted.map((mail) => mail.to).sort()).toEqual(owed);
  const ids = accepted.map((mail) => mail.messageId);
  expect(ids.every((id) => id.length > 0)).toBe(true);
  expect(new Set(ids).size).toBe(ids.length);
}

describe("SIGKILL while a mail is being sent", () => {
  it("restarted, sends every queued mail, the interrupted one included, and none twice", async () => {
    const site = await freshSite();
    const owed = await queueMail(site);
    expect(owed.length).toBeGreaterThan(8);
    const relay = await startRelay();
    sites.cleanup(() => relay.close());
    relay.stallAfter = 3;
    const port = await freePort();

    const first = await start(site, port, relay.port);
    // The server sends three, then hangs on the fourth (the relay holds it): pull the plug.
    await waitFor(() => relay.stalled.length === 1, "a mail held by the relay");
    first.child.kill("SIGKILL");
    await first.exited;
    expect(relay.accepted).toHaveLength(3);
    const interrupted = relay.stalled[0]?.messageId ?? "";

    // The three accepted were marked sent before the next was begun; the rest wait, the ones the
    // dead server had claimed under its lease.
    const rows = await outboxRows(site);
    expect(rows.filter((row) => row.finished_at !== null)).toHaveLength(3);
    // The restart comes after the lease ran out (as it would five minutes later).
    await sites.leasesRunOut(site);

    relay.stallAfter = Infinity;
    const second = await start(site, port, relay.port);
    await waitFor(() => relay.accepted.length >= owed.length, "every mail");
    // A little longer: nothing more comes.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expectOncePerPerson(relay.accepted, owed);
    expect(relay.accepted.map((mail) => mail.messageId)).toContain(interrupted);
    const done = await outboxRows(site);
    expect(done.every((row) => row.finished_at !== null && row.status === "delivered")).toBe(true);
    expect(done).toHaveLength(owed.length);

    second.child.kill("SIGTERM");
    await second.exited;
  }, 120_000);
});

describe("two servers sending from one outbox", () => {
  it("send each mail once", async () => {
    const site = await freshSite();
    const relay = await startRelay();
    sites.cleanup(() => relay.close());
    // Slow to accept, so both servers are sending at the same time.
    relay.acceptDelayMs = 150;
    const a = await start(site, await freePort(), relay.port);
    const b = await start(site, await freePort(), relay.port);
    const owed = await queueMail(site);
    expect(owed.length).toBeGreaterThan(8);
    await waitFor(() => relay.accepted.length >= owed.length, "every mail");
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expectOncePerPerson(relay.accepted, owed);
    a.child.kill("SIGTERM");
    b.child.kill("SIGTERM");
    await Promise.all([a.exited, b.exited]);
  }, 120_000);
});
