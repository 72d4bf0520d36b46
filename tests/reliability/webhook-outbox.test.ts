import path from "node:path";
import { describe, expect, it } from "vitest";
import { DEMO_PASSWORD, seedDemo } from "../../bench/seed.js";
import { createLocalStorage } from "../../core/media/storage.js";
import { openDatabase } from "../../db/connect.js";
import { loginAs, type TestUser } from "../support/factories.js";
import { client } from "../support/http.js";
import { addCategory, addPost } from "../support/post-fixtures.js";
import { PROCESS_ADMIN } from "../support/server-process.js";
import { freePort } from "../support/test-server.js";
import { processSites, type ProcessSite } from "../support/process-sites.js";
import {
  settle,
  startWebhookReceiver,
  verifiedBody,
  waitFor,
} from "../support/webhook-receiver.js";

// The webhook outbox (decision 025) with a real server process and a real HTTP receiver: the
// process is killed (SIGKILL) while the receiver holds one of its deliveries, then restarted.
// The interrupted delivery is tried again with the same webhook-id, and every event queued
// before the crash arrives, each once (the interrupted one twice: the receiver saw the first
// try, and the Standard Webhooks id is what lets it tell the second for the same event).

const sites = processSites("webhooks");

const deliveryRows = (site: ProcessSite) => sites.outboxRows(site, "webhook");
const eventRows = (site: ProcessSite, topic: string) => sites.outboxRows(site, "event", topic);

// The receiver is on 127.0.0.1.
const start = (site: ProcessSite, port: number) =>
  sites.start(site, port, { WEBHOOK_ALLOW_PRIVATE: "on" });

/** A started site whose admin is signed in, with a category and a webhook for `events`. */
async function launch(events: string[]) {
  const site = await sites.freshSite();
  const receiver = await startWebhookReceiver();
  sites.cleanup(() => receiver.close());
  const port = await freePort();
  const first = await start(site, port);
  const api = client(`http://127.0.0.1:${String(port)}`);
  const token = await loginAs(api, PROCESS_ADMIN.email, PROCESS_ADMIN.password);
  const admin: TestUser = { id: "", username: "", ...PROCESS_ADMIN, token };
  const category = (await addCategory(api, admin, "Outbox")).title;
  const endpoint = receiver.endpoint("outbox");
  const created = await api.post<{ _id: string; secret: string }>(
    "/api/webhooks",
    { url: endpoint.url, events },
    { token },
  );
  expect(created.status, created.text).toBe(201);
  return { site, receiver, port, first, api, token, admin, category, endpoint, ...created.body };
}

describe("SIGKILL while a webhook is being delivered", () => {
  it("restarted, tries the interrupted delivery again with its id and loses no event", async () => {
    const { site, receiver, port, first, api, token, admin, category, endpoint, ...created } =
      await launch(["post.published"]);
    const { _id: webhookId, secret } = created;
    const sendTest = async () => {
      const reply = await api.post<{ _id: string }>(`/api/webhooks/${webhookId}/test`, undefined, {
        token,
      });
      expect(reply.status, reply.text).toBe(201);
      return reply.body._id;
    };

    // Three go through while the receiver answers.
    const before = [await sendTest(), await sendTest(), await sendTest()];
    await waitFor(() => receiver.at(endpoint.path).length === 3, "three deliveries");
    // The fourth the receiver takes and holds, unanswered.
    receiver.answer(endpoint.path, ["hang"]);
    const interrupted = await sendTest();
    await waitFor(() => receiver.at(endpoint.path).length === 4, "a delivery held");
    // More events while the sender waits for that answer: queued, not yet sent.
    const after = [await sendTest(), await sendTest()];
    await addPost(api, admin, { category, title: "Published during the hold" });

    // Pull the plug while the receiver holds the request.
    first.child.kill("SIGKILL");
    await first.exited;
    expect(receiver.at(endpoint.path)).toHaveLength(4);
    expect(receiver.at(endpoint.path)[3]?.headers["webhook-id"]).toBe(interrupted);

    // The three answered were recorded before the crash; the held one is still pending, its one
    // try counted and never recorded, under the dead sender's lease; the rest wait their turn.
    const rows = await deliveryRows(site);
    const held = rows.find((row) => row.id === interrupted);
    expect(held).toMatchObject({ status: "pending", attempts: 1, last_attempt_at: null });
    expect(Date.parse(held?.next_attempt_at ?? "")).toBeGreaterThan(Date.now());
    for (const id of before) {
      expect(rows.find((row) => row.id === id)).toMatchObject({ status: "delivered", attempts: 1 });
    }
    const waiting = rows.filter((row) => ![...before, interrupted].includes(row.id));
    expect(waiting.every((row) => row.status === "pending" && row.attempts === 0)).toBe(true);
    expect(waiting.map((row) => row.id)).toEqual(expect.arrayContaining(after));
    // The post's event waits as its delivery, or still as the event (its dispatch not yet come).
    const published = await eventRows(site, "post.published");
    expect(published).toHaveLength(1);
    const postWaits = waiting.filter((row) => row.topic === "post.published").length;
    expect(postWaits + (published[0]?.status === "pending" ? 1 : 0)).toBe(1);
    expect(rows).toHaveLength(6 + postWaits);

    // The restart comes after the lease ran out (as it would a minute later).
    await sites.leasesRunOut(site);

    const second = await start(site, port);
    // The interrupted one again, the two tests and the post: 4 more.
    await waitFor(() => receiver.at(endpoint.path).length >= 8, "every delivery", 30_000);
    // A little longer: nothing more comes.
    await settle(1500);
    const received = receiver.at(endpoint.path);
    expect(received).toHaveLength(8);
    const ids = received.map((hook) => hook.headers["webhook-id"] ?? "");
    expect(ids.filter((id) => id === interrupted)).toHaveLength(2);
    const done = await deliveryRows(site);
    expect(done).toHaveLength(7);
    expect([...new Set(ids)].sort()).toEqual(done.map((row) => row.id).sort());
    for (const id of ids.filter((one) => one !== interrupted)) {
      expect(ids.filter((one) => one === id)).toHaveLength(1);
    }
    // Every try verifies, the interrupted one's both carry the same body.
    const bodies = received.map((hook) => verifiedBody(hook, secret));
    expect(bodies.filter((body) => body.type === "post.published")).toHaveLength(1);
    const tries = received.filter((hook) => hook.headers["webhook-id"] === interrupted);
    expect(tries[1]?.body).toBe(tries[0]?.body);

    expect(done.every((row) => row.status === "delivered" && row.response_status === 200)).toBe(
      true,
    );
    expect(done.find((row) => row.id === interrupted)?.attempts).toBe(2);
    expect(done.filter((row) => row.id !== interrupted).every((row) => row.attempts === 1)).toBe(
      true,
    );

    second.child.kill("SIGTERM");
    await second.exited;
  }, 120_000);
});

// Events are recorded in the write's own transaction (decision 027): a process killed in the
// middle of a burst of writes, some committed and answered, some committed and not yet answered,
// loses the side effects of none. After the restart, every comment the database kept has its
// webhook and its conversation-mail event, each once.
describe("SIGKILL in the middle of a burst of writes", () => {
  it("restarted, tells of every write the database kept, each once", async () => {
    const { site, receiver, port, first, api, token, category, endpoint, ...created } =
      await launch(["comment.created"]);
    // The post is a member's, so each of the admin's comments owes them a conversation mail.
    const handle = openDatabase({ databaseUrl: site.databaseUrl, dataDir: site.dataDir });
    const storage = createLocalStorage(path.join(site.dataDir, "uploads"), "/uploads");
    await seedDemo(handle.db, storage, {
      users: 1,
      categories: 0,
      posts: 0,
      likes: 0,
      comments: 0,
    });
    const seeded = await handle.db
      .selectFrom("users")
      .select(["id", "username", "email"])
      .where("is_admin", "=", 0)
      .executeTakeFirstOrThrow();
    await handle.close();
    const writer = seeded.id;
    const member: TestUser = {
      ...seeded,
      password: DEMO_PASSWORD,
      token: await loginAs(api, seeded.email, DEMO_PASSWORD),
    };
    const post = await addPost(api, member, { category, title: "Talked about" });

    // Sixty comments, twenty in flight at a time; the plug is pulled once ten were answered.
    let answered = 0;
    let next = 0;
    const writeOne = async (): Promise<void> => {
      if (next >= 60) return;
      next += 1;
      const reply = await api
        .post("/api/comments", { text: `Comment ${String(next)}`, postId: post._id }, { token })
        .catch(() => undefined);
      if (reply?.status === 201) answered += 1;
      if (answered < 10) await writeOne();
    };
    const burst = Promise.all(Array.from({ length: 20 }, () => writeOne()));
    await waitFor(() => answered >= 10, "ten comments answered", 30_000);
    first.child.kill("SIGKILL");
    await first.exited;
    await burst;

    // What the database kept: the comments, and their events under the dead instance's lease.
    const reopened = openDatabase({ databaseUrl: site.databaseUrl, dataDir: site.dataDir });
    const kept = await reopened.db
      .selectFrom("comments")
      .select("id")
      .where("post_id", "=", post._id)
      .execute();
    expect(kept.length).toBeGreaterThanOrEqual(answered);
    await reopened.db
      .updateTable("outbox")
      .set({ next_attempt_at: new Date().toISOString() })
      .where("status", "=", "pending")
      .execute();
    await reopened.close();

    const second = await start(site, port);
    const toldOf = () =>
      new Set(
        receiver
          .at(endpoint.path)
          .map((hook) => verifiedBody<{ _id: string }>(hook, created.secret))
          .map((body) => body.data._id),
      );
    await waitFor(() => toldOf().size >= kept.length, "a webhook for every kept comment", 30_000);
    await settle(1500);
    expect([...toldOf()].sort()).toEqual(kept.map((row) => row.id).sort());
    // Each delivery once (an interrupted one may come twice, with its one webhook-id).
    const ids = receiver.at(endpoint.path).map((hook) => hook.headers["webhook-id"] ?? "");
    expect(new Set(ids).size).toBe(kept.length);

    const last = openDatabase({ databaseUrl: site.databaseUrl, dataDir: site.dataDir });
    const mailEvents = await last.db
      .selectFrom("mail_events")
      .select("comment_id")
      .where("recipient_id", "=", writer)
      .execute();
    const events = await last.db
      .selectFrom("outbox")
      .select(["status"])
      .where("channel", "=", "event")
      .where("topic", "=", "comment.created")
      .execute();
    await last.close();
    expect(mailEvents.map((row) => row.comment_id).sort()).toEqual(
      kept.map((row) => row.id).sort(),
    );
    expect(events).toHaveLength(kept.length);
    expect(events.every((row) => row.status === "delivered")).toBe(true);

    second.child.kill("SIGTERM");
    await second.exited;
  }, 120_000);
});
