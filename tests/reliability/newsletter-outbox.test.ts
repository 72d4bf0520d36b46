import type { Kysely } from "kysely";
import { describe, expect, it } from "vitest";
import { newId } from "../../core/shared/ids.js";
import type { Database } from "../../db/schema.js";
import { loginAs, type TestUser } from "../support/factories.js";
import { client } from "../support/http.js";
import { addCategory, addPost } from "../support/post-fixtures.js";
import { processSites, type ProcessSite } from "../support/process-sites.js";
import { PROCESS_ADMIN } from "../support/server-process.js";
import { startRelay, type Accepted } from "../support/smtp-relay.js";
import { freePort } from "../support/test-server.js";
import { waitFor } from "../support/webhook-receiver.js";

// A post mailed to 1,000 subscribers from the outbox (decision 028), by real server processes to
// a real SMTP conversation: each address gets exactly one mail, no faster than NEWSLETTER_RATE;
// a server killed (SIGKILL) in the middle of the sending and started again still sends each
// address one; two servers sending from one outbox (and one database: PostgreSQL when
// DATABASE_URL is set) send each address one.

const SUBSCRIBERS = 1000;
/** Mails a minute: 200 a second, so 1,000 take five seconds at the least. */
const RATE = 12_000;

const sites = processSites("newsletter");

/** A fresh site with 1,000 confirmed subscribers to the whole site. */
const freshSite = () =>
  sites.freshSite(async (db) => {
    const now = new Date().toISOString();
    for (let first = 0; first < SUBSCRIBERS; first += 100) {
      await db
        .insertInto("subscriptions")
        .values(
          Array.from({ length: 100 }, (_, index) => ({
            id: newId(),
            email: `reader-${String(first + index).padStart(4, "0")}@example.com`,
            scope_key: "site",
            author_id: null,
            status: "active" as const,
            created_at: now,
            confirmed_at: now,
            ended_at: null,
          })),
        )
        .execute();
    }
  });

const owed = Array.from(
  { length: SUBSCRIBERS },
  (_, index) => `reader-${String(index).padStart(4, "0")}@example.com`,
);

const start = (site: ProcessSite, port: number, relayPort: number) =>
  sites.start(site, port, {
    SMTP_URL: `smtp://127.0.0.1:${String(relayPort)}`,
    NEWSLETTER_RATE: String(RATE),
  });

/** Publishes a post through the server at `port`, as its admin, into a new category. */
async function publish(port: number, title: string) {
  const api = client(`http://127.0.0.1:${String(port)}`);
  const token = await loginAs(api, PROCESS_ADMIN.email, PROCESS_ADMIN.password);
  const admin: TestUser = { id: "", username: "", ...PROCESS_ADMIN, token };
  const category = (await addCategory(api, admin, "Letters")).title;
  return addPost(api, admin, { title, category, newsletter: "send" });
}

/** The newsletter mails recorded delivered, read while a server sends. */
async function deliveredCount(db: Kysely<Database>) {
  const { count } = await db
    .selectFrom("outbox")
    .select((eb) => eb.fn.countAll<number | string | bigint>().as("count"))
    .where("channel", "=", "newsletter")
    .where("status", "=", "delivered")
    .executeTakeFirstOrThrow();
  return Number(count);
}

/** The post's mails the relay accepted, by address: each must be there exactly once. */
function expectOnceEach(accepted: Accepted[], title: string) {
  const mails = accepted.filter((mail) => mail.raw.includes(`Subject: ${title}`));
  expect(mails.map((mail) => mail.to).sort()).toEqual(owed);
  expect(new Set(mails.map((mail) => mail.messageId)).size).toBe(SUBSCRIBERS);
}

describe("a post mailed to 1,000 subscribers", () => {
  it("reaches each once at the rate, though the server is killed mid-send", async () => {
    const site = await freshSite();
    const relay = await startRelay();
    sites.cleanup(() => relay.close());
    relay.stallAfter = 400;
    const port = await freePort();
    const first = await start(site, port, relay.port);
    const began = Date.now();
    await publish(port, "To every reader");
    // Four hundred accepted, the next held by the relay (with the others of its claim, sent side
    // by side).
    await waitFor(() => relay.stalled.length > 0, "a mail held by the relay", 60_000);
    // 400 mails at 200 a second take two seconds at the least (the pacer's rate).
    expect(Date.now() - began).toBeGreaterThanOrEqual((399 / (RATE / 60)) * 1000);
    // Pull the plug once the 400 are recorded, the held ones in flight: a mail accepted and not
    // yet recorded is one the outbox sends again (at least once, under the same Message-ID).
    await sites.withDatabase(site, (db) =>
      waitFor(
        async () => (await deliveredCount(db)) === 400,
        "the accepted mails recorded",
        10_000,
      ),
    );
    first.child.kill("SIGKILL");
    await first.exited;
    expect(relay.accepted).toHaveLength(400);
    const interrupted = relay.stalled.map((mail) => mail.messageId);

    // The restart comes after the dead server's lease ran out (as it would two minutes later).
    await sites.leasesRunOut(site);
    relay.stallAfter = Infinity;
    const second = await start(site, port, relay.port);
    await waitFor(() => relay.accepted.length >= SUBSCRIBERS, "every mail", 60_000);
    // A little longer: nothing more comes.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expectOnceEach(relay.accepted, "To every reader");
    expect(relay.accepted.map((mail) => mail.messageId)).toEqual(
      expect.arrayContaining(interrupted),
    );
    const rows = await sites.outboxRows(site, "newsletter");
    expect(rows).toHaveLength(SUBSCRIBERS);
    expect(rows.every((row) => row.status === "delivered")).toBe(true);
    second.child.kill("SIGTERM");
    await second.exited;
  }, 180_000);

  it("reaches each once from two servers sending from one outbox", async () => {
    const site = await freshSite();
    const relay = await startRelay();
    sites.cleanup(() => relay.close());
    const ports = [await freePort(), await freePort()] as const;
    // Started at the same moment, as instances behind a balancer may be.
    const [a, b] = await Promise.all([
      start(site, ports[0], relay.port),
      start(site, ports[1], relay.port),
    ]);
    await publish(ports[0], "To every reader, twice served");
    await waitFor(() => relay.accepted.length >= SUBSCRIBERS, "every mail", 60_000);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expectOnceEach(relay.accepted, "To every reader, twice served");
    a.child.kill("SIGTERM");
    b.child.kill("SIGTERM");
    await Promise.all([a.exited, b.exited]);
  }, 180_000);
});
