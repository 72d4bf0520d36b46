import { randomUUID } from "node:crypto";
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { WEBHOOK_EVENTS } from "../../contract/integrations.js";
import { isPrivateAddress } from "../../core/integrations/addresses.js";
import { nextTryAt, RETRY_DELAYS_MS, webhookRules } from "../../core/integrations/webhooks.js";
import { claimDue, pendingRow } from "../../core/outbox/outbox.js";
import { publishDuePosts } from "../../core/posts/scheduled-publishing.js";
import { buildUser, PASSWORD, signInAdmin, type TestUser } from "../support/factories.js";
import { client, type Client, type Reply } from "../support/http.js";
import {
  addCategory,
  addComment,
  addPost,
  PUBLIC_USER_KEYS,
  type ErrorBody,
  type PostDetail,
} from "../support/post-fixtures.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import {
  headersOf,
  settle,
  startWebhookReceiver,
  verifiedBody,
  waitFor,
  type ReceivedHook,
  type WebhookReceiver,
} from "../support/webhook-receiver.js";

// Webhooks (DESIGN.md 10, "Integrations"; decision 025): the admin API, signed deliveries from
// the durable outbox to a real HTTP receiver of the test's own, retries with the same webhook-id,
// the refusal of private addresses (at creation and again at every delivery), and two instances
// sharing one outbox. Signatures are checked with the `standardwebhooks` package, never with the
// server's own code. The servers look for due deliveries every 200 ms and give a receiver 1 s,
// so a retry whose time is moved to now in the database goes out at once.

const FAST = { outboxCheckMs: 200, webhookTimeoutMs: 1000 };

interface CreatedWebhook {
  _id: string;
  url: string;
  events: string[];
  secret: string;
  createdAt: string;
}

interface Endpoint extends CreatedWebhook {
  /** The receiver's path this webhook posts to. */
  path: string;
}

interface Delivery {
  _id: string;
  event: string;
  status: "pending" | "delivered" | "failed";
  attempts: number;
  lastAttemptAt: string | null;
  responseStatus: number | null;
}

const DELIVERY_KEYS = ["_id", "attempts", "event", "lastAttemptAt", "responseStatus", "status"];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Ids that are no webhook: unknown, malformed and injection-shaped. */
const MISSING_IDS = [randomUUID(), "abc", "1 OR 1=1", "' OR '1'='1"];
const pathId = (id: string) => encodeURIComponent(id);

let receiver: WebhookReceiver;
let server: TestServer;
let api: Client;
let admin: TestUser;
let member: TestUser;
let category: string;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  // This site may post to 127.0.0.1, where the receiver is.
  server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE: "on" }, FAST);
  api = client(server.url);
  admin = await signInAdmin(server, api);
  member = await buildUser(server, api);
  category = (await addCategory(api, admin, "Hooks")).title;
});
afterAll(async () => {
  await server.close();
  await receiver.close();
});
// Every test starts with no endpoint: one test's events never reach another's.
afterEach(async () => {
  const list = await api.get<CreatedWebhook[]>("/api/webhooks", { token: admin.token });
  for (const webhook of list.body) {
    await api.delete(`/api/webhooks/${webhook._id}`, { token: admin.token });
  }
});

function expectError(reply: Reply, status: number, message?: string) {
  expect(reply.status, reply.text).toBe(status);
  const body = reply.body as Partial<ErrorBody>;
  expect(typeof body.message).toBe("string");
  if (message !== undefined) expect(body.message).toBe(message);
}

/** The message a 400 gives for one field. */
const fieldError = (reply: Reply, field: string) =>
  (reply.body as Partial<ErrorBody>).errors?.[field];

/** A webhook to a path of its own on the receiver, made through the API by the admin. */
async function addWebhook(
  name: string,
  events: readonly string[] = WEBHOOK_EVENTS,
  on: { api: Client; admin: TestUser } = { api, admin },
): Promise<Endpoint> {
  const endpoint = receiver.endpoint(name);
  const reply = await on.api.post<CreatedWebhook>(
    "/api/webhooks",
    { url: endpoint.url, events },
    { token: on.admin.token },
  );
  expect(reply.status, reply.text).toBe(201);
  return { ...reply.body, path: endpoint.path };
}

const deliveriesOf = (
  id: string,
  query = "",
  on: { api: Client; admin: TestUser } = { api, admin },
) =>
  on.api.get<Delivery[]>(`/api/webhooks/${pathId(id)}/deliveries${query}`, {
    token: on.admin.token,
  });

const sendTest = (id: string, on: { api: Client; admin: TestUser } = { api, admin }) =>
  on.api.post<Delivery>(`/api/webhooks/${pathId(id)}/test`, undefined, { token: on.admin.token });

/** A delivery's row in the outbox, as the server keeps it. */
const rowOf = (id: string, on: TestServer = server) =>
  on.app.deps.db.selectFrom("outbox").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

/**
 * A delivery's retry comes due now, as if its wait were over (the worker checks every 200 ms).
 * Returns when its last try was recorded, which the retry's record comes after.
 */
async function dueNow(id: string) {
  const since = await lastTriedAt(id);
  await server.app.deps.db
    .updateTable("outbox")
    .set({ next_attempt_at: new Date().toISOString() })
    .where("id", "=", id)
    .execute();
  return since;
}

/**
 * When a delivery's last try was recorded, by the server's own clock (0: never). The server's
 * clock never gives a time twice, so the next try's record is strictly later: a claim, which
 * writes no time, is never taken for it (reading the test's clock instead failed on Node 24).
 */
async function lastTriedAt(id: string) {
  const row = await rowOf(id);
  return row.last_attempt_at === null ? 0 : Date.parse(row.last_attempt_at);
}

/**
 * Waits until a delivery's try number `attempts` has been recorded (not merely claimed): its
 * last try is written after `since`, when the try before it was recorded.
 */
async function tried(id: string, attempts: number, since = 0, on: TestServer = server) {
  await waitFor(
    async () => {
      const row = await rowOf(id, on);
      return (
        row.attempts === attempts &&
        row.last_attempt_at !== null &&
        Date.parse(row.last_attempt_at) > since
      );
    },
    `try ${String(attempts)} of delivery ${id}`,
  );
  return rowOf(id, on);
}

/** The verified bodies one endpoint received, in order. */
const bodiesAt = (endpoint: Endpoint) =>
  receiver.at(endpoint.path).map((hook) => verifiedBody(hook, endpoint.secret));

/** Waits until an endpoint has received `count` requests, and returns them. */
async function receivedAt(endpoint: Endpoint, count: number, ms?: number): Promise<ReceivedHook[]> {
  await waitFor(
    () => receiver.at(endpoint.path).length >= count,
    `${String(count)} request(s) at ${endpoint.path}`,
    ms,
  );
  return receiver.at(endpoint.path);
}

describe("who may manage webhooks", () => {
  it("asks for a session", async () => {
    const id = randomUUID();
    expectError(await api.post("/api/webhooks", { url: "https://example.com/", events: [] }), 401);
    expectError(await api.get("/api/webhooks"), 401);
    expectError(await api.delete(`/api/webhooks/${id}`), 401);
    expectError(await api.get(`/api/webhooks/${id}/deliveries`), 401);
    expectError(await api.post(`/api/webhooks/${id}/test`), 401);
  });

  it("is for admins: a member gets 403 everywhere, and the admin's webhook is untouched", async () => {
    // A real webhook, so a 403 cannot be a 404 in disguise.
    const webhook = await addWebhook("members-denied");
    const token = { token: member.token };
    const created = await api.post(
      "/api/webhooks",
      { url: receiver.endpoint("member").url, events: ["post.published"] },
      token,
    );
    expectError(created, 403);
    expectError(await api.get("/api/webhooks", token), 403);
    expectError(await api.delete(`/api/webhooks/${webhook._id}`, token), 403);
    expectError(await api.get(`/api/webhooks/${webhook._id}/deliveries`, token), 403);
    expectError(await api.post(`/api/webhooks/${webhook._id}/test`, undefined, token), 403);
    const list = await api.get<CreatedWebhook[]>("/api/webhooks", { token: admin.token });
    expect(list.body.map((row) => row._id)).toEqual([webhook._id]);
    expect((await deliveriesOf(webhook._id)).body).toEqual([]);
    expect(receiver.at(webhook.path)).toHaveLength(0);
  });
});

describe("POST /api/webhooks refuses", () => {
  const webhookCount = async () =>
    Number(
      (
        await server.app.deps.db
          .selectFrom("webhooks")
          .select((eb) => eb.fn.countAll<number | string>().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it.each([
    ["an ftp: URL", "ftp://example.com/hook", "URL must be an http:// or https:// address"],
    ["a javascript: URL", "javascript:alert(1)", "URL must be an http:// or https:// address"],
    ["a data: URL", "data:text/plain,hi", "URL must be an http:// or https:// address"],
    ["a URL without a scheme", "example.com/hook", "URL must be an http:// or https:// address"],
    ["a file: URL", "file:///etc/passwd", "URL must be an http:// or https:// address"],
    ["an empty URL", "", "URL is required"],
    ["a URL that is not text", 42, "URL is required"],
  ])("%s with 400 naming url, and stores nothing", async (_what, url, message) => {
    const before = await webhookCount();
    const reply = await api.post(
      "/api/webhooks",
      { url, events: ["post.published"] },
      { token: admin.token },
    );
    expectError(reply, 400, message);
    expect(fieldError(reply, "url")).toBe(message);
    expect(await webhookCount()).toBe(before);
  });

  it("a missing URL with 400", async () => {
    const reply = await api.post(
      "/api/webhooks",
      { events: ["post.published"] },
      { token: admin.token },
    );
    expectError(reply, 400, "URL is required");
  });

  it.each([
    ["no events", undefined, "Choose at least one event"],
    ["an empty list of events", [], "Choose at least one event"],
    ["events that are not a list", "post.published", "Choose at least one event"],
    [
      "an unknown event",
      ["post.liked"],
      "Unknown event: events are post.published, post.updated, post.deleted, comment.created, user.created",
    ],
    [
      "an unknown event beside a known one",
      ["post.published", "webhook.test"],
      "Unknown event: events are post.published, post.updated, post.deleted, comment.created, user.created",
    ],
  ])("%s with 400, and stores nothing", async (_what, events, message) => {
    const before = await webhookCount();
    const reply = await api.post(
      "/api/webhooks",
      { url: receiver.endpoint("refused").url, ...(events === undefined ? {} : { events }) },
      { token: admin.token },
    );
    expectError(reply, 400, message);
    expect(await webhookCount()).toBe(before);
  });

  it("a body that is not a JSON object with 400", async () => {
    const reply = await api.raw("POST", "/api/webhooks", "[1,2]", {
      token: admin.token,
      headers: { "content-type": "application/json" },
    });
    expect(reply.status, reply.text).toBe(400);
  });
});

describe("unknown webhooks", () => {
  it.each(MISSING_IDS)("answer 404 to delete, deliveries and test for %j", async (id) => {
    const token = { token: admin.token };
    expectError(await api.delete(`/api/webhooks/${pathId(id)}`, token), 404, "Webhook not found");
    expectError(
      await api.get(`/api/webhooks/${pathId(id)}/deliveries`, token),
      404,
      "Webhook not found",
    );
    expectError(
      await api.post(`/api/webhooks/${pathId(id)}/test`, undefined, token),
      404,
      "Webhook not found",
    );
  });
});

describe("creating and listing webhooks", () => {
  it("are admin actions in the audit log, with the address", async () => {
    const endpoint = receiver.endpoint("audited");
    const made = await api.post<CreatedWebhook>(
      "/api/webhooks",
      { url: endpoint.url, events: ["post.published"] },
      { token: admin.token },
    );
    expect(made.status, made.text).toBe(201);
    expect(
      (await api.delete(`/api/webhooks/${made.body._id}`, { token: admin.token })).status,
    ).toBe(204);
    const audit = await api.get<{ action: string; target: { kind: string; summary: string } }[]>(
      "/api/admin/audit?pageNumber=1",
      { token: admin.token },
    );
    expect(audit.body.slice(0, 2)).toEqual([
      expect.objectContaining({
        action: "webhook.delete",
        target: expect.objectContaining({ kind: "webhook", summary: endpoint.url }) as unknown,
      }),
      expect.objectContaining({
        action: "webhook.create",
        target: expect.objectContaining({ kind: "webhook", summary: endpoint.url }) as unknown,
      }),
    ]);
  });

  it("answers 201 with the secret once; the list and the deliveries never show it again", async () => {
    const endpoint = receiver.endpoint("created");
    const reply = await api.post<CreatedWebhook>(
      "/api/webhooks",
      // Duplicates are merged, the order kept.
      { url: endpoint.url, events: ["post.updated", "post.published", "post.updated"] },
      { token: admin.token },
    );
    expect(reply.status, reply.text).toBe(201);
    expect(Object.keys(reply.body).sort()).toEqual(["_id", "createdAt", "events", "secret", "url"]);
    expect(reply.body._id).toMatch(UUID);
    expect(reply.body.url).toBe(endpoint.url);
    expect(reply.body.events).toEqual(["post.updated", "post.published"]);
    // The Standard Webhooks form: whsec_ and base64 of at least 24 bytes.
    expect(reply.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32,}={0,2}$/);
    expect(Buffer.from(reply.body.secret.slice(6), "base64").length).toBeGreaterThanOrEqual(24);
    expect(Math.abs(Date.parse(reply.body.createdAt) - Date.now())).toBeLessThan(60_000);

    const other = await addWebhook("created-too", ["user.created"]);
    expect(other.secret).not.toBe(reply.body.secret);

    const list = await api.get<Omit<CreatedWebhook, "secret">[]>("/api/webhooks", {
      token: admin.token,
    });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([
      {
        _id: reply.body._id,
        url: endpoint.url,
        events: ["post.updated", "post.published"],
        createdAt: reply.body.createdAt,
      },
      { _id: other._id, url: other.url, events: ["user.created"], createdAt: other.createdAt },
    ]);
    expect(list.text).not.toContain("whsec_");
    expect(list.text).not.toMatch(/secret/i);

    const test = await sendTest(reply.body._id);
    expect(test.text).not.toContain(reply.body.secret);
    await tried(test.body._id, 1);
    const deliveries = await deliveriesOf(reply.body._id);
    expect(deliveries.text).not.toContain("whsec_");
    expect(deliveries.text).not.toMatch(/secret/i);
    // Nor does the receiver ever see it: it only proves it knows it.
    expect(receiver.at(endpoint.path).every((hook) => !hook.body.includes("whsec_"))).toBe(true);
  });
});

describe("deliveries", () => {
  it("sends a published post, signed, to the endpoints that want post.published only", async () => {
    const posts = await addWebhook("posts", ["post.published"]);
    const comments = await addWebhook("comments", ["comment.created"]);
    const post = await addPost(api, member, { category, title: "Signed and sent" });
    const [hook] = await receivedAt(posts, 1);
    if (!hook) throw new Error("no delivery");

    expect(hook.method).toBe("POST");
    expect(hook.headers["content-type"]).toMatch(/^application\/json/);
    expect(hook.headers["webhook-id"]).toMatch(UUID);
    const timestamp = Number(hook.headers["webhook-timestamp"]);
    expect(Number.isInteger(timestamp)).toBe(true);
    expect(Math.abs(timestamp - Date.now() / 1000)).toBeLessThan(60);
    expect(hook.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+={0,2}$/);

    const body = verifiedBody<PostDetail>(hook, posts.secret);
    expect(Object.keys(body).sort()).toEqual(["data", "timestamp", "type"]);
    expect(body.type).toBe("post.published");
    expect(new Date(body.timestamp).toISOString()).toBe(body.timestamp);
    // The post as an anonymous reader gets it from the API.
    const read = await api.get<PostDetail>(`/api/posts/${post._id}`);
    expect(body.data).toEqual(read.body);
    expect(body.data._id).toBe(post._id);
    expect(body.data.title).toBe("Signed and sent");

    // Another endpoint's secret, a changed body or a changed id: the signature no longer holds.
    expect(() => verifiedBody(hook, comments.secret)).toThrow(WebhookVerificationError);
    const wrongSecret = new Webhook(Buffer.from("not the secret at all").toString("base64"));
    expect(() => wrongSecret.verify(hook.body, headersOf(hook))).toThrow(WebhookVerificationError);
    const forged = hook.body.replace("Signed and sent", "Signed and forged");
    expect(() => new Webhook(posts.secret).verify(forged, headersOf(hook))).toThrow(
      WebhookVerificationError,
    );
    const otherId = { ...headersOf(hook), "webhook-id": randomUUID() };
    expect(() => new Webhook(posts.secret).verify(hook.body, otherId)).toThrow(
      WebhookVerificationError,
    );

    const deliveries = await deliveriesOf(posts._id);
    expect(deliveries.status).toBe(200);
    expect(deliveries.body).toHaveLength(1);
    const [delivery] = deliveries.body;
    expect(Object.keys(delivery ?? {}).sort()).toEqual(DELIVERY_KEYS);
    expect(delivery).toMatchObject({
      _id: hook.headers["webhook-id"],
      event: "post.published",
      status: "delivered",
      attempts: 1,
      responseStatus: 200,
    });
    expect(Date.parse(delivery?.lastAttemptAt ?? "")).toBeGreaterThan(Date.now() - 60_000);

    // The comments endpoint heard nothing of the post, and no delivery was queued for it.
    await settle();
    expect(receiver.at(comments.path)).toHaveLength(0);
    expect((await deliveriesOf(comments._id)).body).toEqual([]);
    expect(receiver.at(posts.path)).toHaveLength(1);
  });

  it("tells of a post's life: published, updated, taken back to draft, again, deleted", async () => {
    const hook = await addWebhook("lifecycle");
    const token = { token: member.token };
    const types = () => bodiesAt(hook).map((body) => body.type);
    const nth = async (count: number) => {
      await receivedAt(hook, count);
      const body = bodiesAt(hook)[count - 1];
      if (!body) throw new Error(`no delivery ${String(count)}`);
      return body;
    };

    // A draft, and its edits, are nobody's business yet.
    const draft = await addPost(api, member, { category, title: "Quiet draft", status: "draft" });
    const edited = await api.put(
      `/api/posts/${draft._id}`,
      { title: "Still quiet", category, description: "Draft words." },
      token,
    );
    expect(edited.status, edited.text).toBe(200);

    const published = await api.put(`/api/posts/${draft._id}`, { status: "published" }, token);
    expect(published.status, published.text).toBe(200);
    const first = await nth(1);
    expect(first.type).toBe("post.published");
    expect(first.data).toMatchObject({ _id: draft._id, title: "Still quiet", status: "published" });

    const update = await api.put(
      `/api/posts/${draft._id}`,
      { title: "Out now, edited", category, description: "Public words." },
      token,
    );
    expect(update.status, update.text).toBe(200);
    const second = await nth(2);
    expect(second.type).toBe("post.updated");
    expect(second.data).toMatchObject({ _id: draft._id, title: "Out now, edited" });

    // Taken back to drafts: for the outside world it is gone.
    const unpublished = await api.put(`/api/posts/${draft._id}`, { status: "draft" }, token);
    expect(unpublished.status, unpublished.text).toBe(200);
    const third = await nth(3);
    expect(third.type).toBe("post.deleted");
    expect(third.data).toEqual({ _id: draft._id });

    const again = await api.put(`/api/posts/${draft._id}`, { status: "published" }, token);
    expect(again.status, again.text).toBe(200);
    expect((await nth(4)).type).toBe("post.published");

    const removed = await api.delete(`/api/posts/${draft._id}`, token);
    expect(removed.status, removed.text).toBe(200);
    const fifth = await nth(5);
    expect(fifth.type).toBe("post.deleted");
    expect(fifth.data).toEqual({ _id: draft._id });

    // A draft deleted was never out: nothing to tell.
    const other = await addPost(api, member, { category, title: "Never out", status: "draft" });
    expect((await api.delete(`/api/posts/${other._id}`, token)).status).toBe(200);
    await settle();
    expect(types()).toEqual([
      "post.published",
      "post.updated",
      "post.deleted",
      "post.published",
      "post.deleted",
    ]);
    // Every try of every delivery went out once, under an id of its own.
    const ids = receiver.at(hook.path).map((received) => received.headers["webhook-id"]);
    expect(new Set(ids).size).toBe(5);
  });

  // Every way a published post leaves the site is a post.deleted: a receiver that mirrors the
  // posts (a search index, a static build) would otherwise keep them for ever.
  it("tells of a published post an admin removes on a report", async () => {
    const hook = await addWebhook("reported", ["post.deleted"]);
    const post = await addPost(api, member, { category, title: "Reported and removed" });
    const reporter = await buildUser(server, api);
    const reported = await api.post<{ _id: string }>(
      "/api/reports",
      { postId: post._id, reason: "spam" },
      { token: reporter.token },
    );
    expect(reported.status, reported.text).toBe(201);
    const decided = await api.put(
      `/api/reports/${reported.body._id}`,
      { action: "remove" },
      { token: admin.token },
    );
    expect(decided.status, decided.text).toBe(200);
    expect((await api.get(`/api/posts/${post._id}`)).status).toBe(404);
    // Sent at once when it is queued: 3 s is plenty.
    const [received] = await receivedAt(hook, 1, 3000);
    if (!received) throw new Error("no delivery");
    const body = verifiedBody(received, hook.secret);
    expect(body.type).toBe("post.deleted");
    expect(body.data).toEqual({ _id: post._id });
  });

  it("tells of the published posts that go with a deleted account, and of no draft", async () => {
    const hook = await addWebhook("account-gone", ["post.deleted"]);
    const leaving = await buildUser(server, api);
    const published = await addPost(api, leaving, { category, title: "Out, then gone" });
    await addPost(api, leaving, { category, title: "Never out", status: "draft" });
    const removed = await api.delete(`/api/users/profile/${leaving.id}`, { token: admin.token });
    expect(removed.status, removed.text).toBe(200);
    expect((await api.get(`/api/posts/${published._id}`)).status).toBe(404);
    const [received] = await receivedAt(hook, 1, 3000);
    if (!received) throw new Error("no delivery");
    expect(verifiedBody(received, hook.secret)).toMatchObject({
      type: "post.deleted",
      data: { _id: published._id },
    });
    await settle(300);
    expect(receiver.at(hook.path)).toHaveLength(1);
  });

  it("tells of a scheduled post when it goes out, not when it is scheduled", async () => {
    const hook = await addWebhook("scheduled", ["post.published"]);
    const scheduled = await addPost(api, member, {
      category,
      title: "Later on",
      status: "scheduled",
      publishAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    await settle(300);
    expect(receiver.at(hook.path)).toHaveLength(0);
    // Its time comes: the scheduled publisher's own step, run now.
    await server.app.deps.db
      .updateTable("posts")
      .set({ publish_at: new Date(Date.now() - 1000).toISOString() })
      .where("id", "=", scheduled._id)
      .execute();
    expect(await publishDuePosts(server.app.deps)).toContain(scheduled._id);
    const [received] = await receivedAt(hook, 1);
    if (!received) throw new Error("no delivery");
    const body = verifiedBody<PostDetail>(received, hook.secret);
    expect(body.type).toBe("post.published");
    expect(body.data).toMatchObject({ _id: scheduled._id, title: "Later on", status: "published" });
    await settle(300);
    expect(receiver.at(hook.path)).toHaveLength(1);
  });

  it("tells of comments under published posts only, with the comment as the API gives it", async () => {
    const hook = await addWebhook("talk", ["comment.created"]);
    const draft = await addPost(api, member, { category, title: "Talked of", status: "draft" });
    await addComment(api, member, draft._id, "A note to myself");
    const post = await addPost(api, member, { category, title: "Talk here" });
    const comment = await addComment(api, admin, post._id, "Nice one");
    const [received] = await receivedAt(hook, 1);
    if (!received) throw new Error("no delivery");
    const body = verifiedBody(received, hook.secret);
    expect(body.type).toBe("comment.created");
    expect(body.data).toEqual(comment);
    expect(body.data).toMatchObject({ postId: post._id, text: "Nice one" });
    // The post went out too, but this endpoint did not ask for posts; the draft's note stays put.
    await settle();
    expect(receiver.at(hook.path)).toHaveLength(1);
  });

  it("tells of a sign-up with the public user, and no e-mail address", async () => {
    const hook = await addWebhook("people", ["user.created"]);
    const username = `hook${Math.random().toString(36).slice(2, 8)}`;
    const email = `${username}@example.com`;
    const reply = await api.post("/api/auth/register", { username, email, password: PASSWORD });
    expect(reply.status, reply.text).toBe(201);
    const [received] = await receivedAt(hook, 1);
    if (!received) throw new Error("no delivery");
    const body = verifiedBody(received, hook.secret);
    expect(body.type).toBe("user.created");
    expect(Object.keys(body.data).sort()).toEqual(PUBLIC_USER_KEYS);
    const row = await server.app.deps.db
      .selectFrom("users")
      .select("id")
      .where("username", "=", username)
      .executeTakeFirstOrThrow();
    expect(body.data).toMatchObject({ _id: row.id, username });
    expect(received.body.toLowerCase()).not.toContain(email);
    expect(received.body).not.toContain("@");
  });
});

describe("the test event", () => {
  it("queues a webhook.test delivery (201) that the receiver gets like any other", async () => {
    // An endpoint that wants one event still gets the test.
    const hook = await addWebhook("tested", ["user.created"]);
    const reply = await sendTest(hook._id);
    expect(reply.status, reply.text).toBe(201);
    expect(Object.keys(reply.body).sort()).toEqual(DELIVERY_KEYS);
    expect(reply.body).toMatchObject({ event: "webhook.test", status: "pending", attempts: 0 });
    expect(reply.body._id).toMatch(UUID);
    const [received] = await receivedAt(hook, 1);
    if (!received) throw new Error("no delivery");
    expect(received.headers["webhook-id"]).toBe(reply.body._id);
    const body = verifiedBody<{ message: string }>(received, hook.secret);
    expect(body.type).toBe("webhook.test");
    expect(body.data.message).toContain(server.url);
    await tried(reply.body._id, 1);
    expect((await deliveriesOf(hook._id)).body).toEqual([
      expect.objectContaining({
        _id: reply.body._id,
        event: "webhook.test",
        status: "delivered",
        attempts: 1,
        responseStatus: 200,
      }),
    ]);
  });

  it("lists deliveries newest first, 20 a page", async () => {
    const hook = await addWebhook("paged", ["user.created"]);
    const sent: string[] = [];
    for (let i = 0; i < 21; i += 1) sent.push((await sendTest(hook._id)).body._id);
    await waitFor(() => receiver.at(hook.path).length >= 21, "21 test events");
    const first = await deliveriesOf(hook._id);
    const second = await deliveriesOf(hook._id, "?pageNumber=2");
    expect(first.body).toHaveLength(20);
    expect(second.body).toHaveLength(1);
    expect([...first.body, ...second.body].map((row) => row._id).sort()).toEqual(sent.sort());
    // Newest first: by the time each was queued.
    const queuedAt = new Map(
      (
        await server.app.deps.db
          .selectFrom("outbox")
          .select(["id", "created_at"])
          .where("webhook_id", "=", hook._id)
          .execute()
      ).map((row) => [row.id, row.created_at]),
    );
    const times = [...first.body, ...second.body].map((row) => queuedAt.get(row._id) ?? "");
    expect(times).toEqual([...times].sort().reverse());
    expect((await deliveriesOf(hook._id, "?pageNumber=3")).body).toEqual([]);
    expectError(await deliveriesOf(hook._id, "?pageNumber=0"), 400);
    expectError(await deliveriesOf(hook._id, "?pageNumber=abc"), 400);
  });
});

describe("retries", () => {
  it("retries a non-2xx answer with the same webhook-id, then records it delivered", async () => {
    const hook = await addWebhook("flaky", ["user.created"]);
    receiver.answer(hook.path, [500]);
    const { body: queued } = await sendTest(hook._id);
    await receivedAt(hook, 1);
    const failed = await tried(queued._id, 1);
    expect(failed).toMatchObject({ status: "pending", attempts: 1, response_status: 500 });
    // The first retry within a minute.
    const wait =
      Date.parse(failed.next_attempt_at ?? "") - Date.parse(failed.last_attempt_at ?? "");
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(60_000);
    expect((await deliveriesOf(hook._id)).body).toEqual([
      expect.objectContaining({ status: "pending", attempts: 1, responseStatus: 500 }),
    ]);

    // Its time comes: the worker tries again, and this time the receiver takes it.
    const since = await dueNow(queued._id);
    const [one, two] = await receivedAt(hook, 2);
    if (!one || !two) throw new Error("no retry");
    expect(two.headers["webhook-id"]).toBe(one.headers["webhook-id"]);
    expect(two.headers["webhook-id"]).toBe(queued._id);
    // The same body, each try signed for itself.
    expect(two.body).toBe(one.body);
    expect(verifiedBody(one, hook.secret)).toEqual(verifiedBody(two, hook.secret));
    const done = await tried(queued._id, 2, since);
    expect(done).toMatchObject({
      status: "delivered",
      response_status: 200,
      next_attempt_at: null,
    });
    expect((await deliveriesOf(hook._id)).body).toEqual([
      expect.objectContaining({
        _id: queued._id,
        status: "delivered",
        attempts: 2,
        responseStatus: 200,
      }),
    ]);
    await settle();
    expect(receiver.at(hook.path)).toHaveLength(2);
  });

  it("does not follow a redirect: it is an answer that is not 2xx", async () => {
    const hook = await addWebhook("moved", ["user.created"]);
    const elsewhere = receiver.endpoint("elsewhere");
    receiver.answer(hook.path, [{ status: 302, headers: { location: elsewhere.url } }]);
    const { body: queued } = await sendTest(hook._id);
    const row = await tried(queued._id, 1);
    expect(row).toMatchObject({ status: "pending", response_status: 302 });
    await settle(300);
    expect(receiver.at(elsewhere.path)).toHaveLength(0);
  });

  it("gives up on a receiver that does not answer in time, and tries again later", async () => {
    const hook = await addWebhook("silent", ["user.created"]);
    receiver.answer(hook.path, ["hang"]);
    const { body: queued } = await sendTest(hook._id);
    const [held] = await receivedAt(hook, 1);
    if (!held) throw new Error("no delivery");
    const row = await tried(queued._id, 1);
    expect(row).toMatchObject({ status: "pending", attempts: 1, response_status: null });
    expect(row.last_error).toMatch(/no answer within 1 s/);
    expect(Date.parse(row.next_attempt_at ?? "")).toBeGreaterThan(Date.now());
    // Given up after the server's 1 s, not before; and the connection was let go.
    expect(Date.parse(row.last_attempt_at ?? "") - held.at).toBeGreaterThanOrEqual(800);
    await waitFor(() => held.closedAt !== undefined, "the held request to be let go");
    expect((await deliveriesOf(hook._id)).body).toEqual([
      expect.objectContaining({ status: "pending", attempts: 1, responseStatus: null }),
    ]);

    const since = await dueNow(queued._id);
    const [, again] = await receivedAt(hook, 2);
    expect(again?.headers["webhook-id"]).toBe(queued._id);
    expect(await tried(queued._id, 2, since)).toMatchObject({ status: "delivered" });
  });

  it("marks a delivery failed once its day is over, and tries no more", async () => {
    const hook = await addWebhook("gone-for-good", ["user.created"]);
    receiver.answer(hook.path, [500, 503]);
    const { body: queued } = await sendTest(hook._id);
    await tried(queued._id, 1);
    // As if the event were a day old when the next try comes.
    const since = await lastTriedAt(queued._id);
    await server.app.deps.db
      .updateTable("outbox")
      .set({
        created_at: new Date(Date.now() - 24 * 3_600_000 - 60_000).toISOString(),
        next_attempt_at: new Date().toISOString(),
      })
      .where("id", "=", queued._id)
      .execute();
    // Claimed past its day (as after a long outage): given up without a try.
    const row = await tried(queued._id, 2, since);
    expect(row).toMatchObject({ status: "failed", response_status: null, next_attempt_at: null });
    expect(row.last_error).toMatch(/over a day/);
    expect((await deliveriesOf(hook._id)).body).toEqual([
      expect.objectContaining({ status: "failed", attempts: 2, responseStatus: null }),
    ]);
    await settle();
    expect(receiver.at(hook.path)).toHaveLength(1);
  });

  it("spaces the tries out over one day: first retry within a minute, then longer", () => {
    const created = "2031-01-01T00:00:00.000Z";
    const start = Date.parse(created);
    expect(RETRY_DELAYS_MS[0]).toBeLessThanOrEqual(60_000);
    for (let i = 1; i < RETRY_DELAYS_MS.length; i += 1) {
      expect(RETRY_DELAYS_MS[i]).toBeGreaterThan(RETRY_DELAYS_MS[i - 1] ?? Infinity);
    }
    // A receiver that never takes it: every try fails at once, the next when nextTryAt says.
    const tries = [start];
    for (let attempts = 1; ; attempts += 1) {
      const next = nextTryAt(created, attempts, new Date(tries.at(-1) ?? start));
      if (!next) break;
      tries.push(next.getTime());
    }
    expect(tries.length).toBe(RETRY_DELAYS_MS.length + 1);
    expect(tries[1]).toBe(start + 30_000);
    expect((tries.at(-1) ?? 0) - start).toBeLessThanOrEqual(24 * 3_600_000);
    expect((tries.at(-1) ?? 0) - start).toBeGreaterThan(12 * 3_600_000);
    // A try that would fall past the day is not made.
    const late = new Date(start + 24 * 3_600_000 - 15_000);
    expect(nextTryAt(created, 1, late)).toBeUndefined();
    expect(nextTryAt(created, 6, new Date(start + 20 * 3_600_000))).toBeUndefined();
    expect(nextTryAt(created, 3, new Date(start + 20 * 3_600_000))?.getTime()).toBe(
      start + 20 * 3_600_000 + 10 * 60_000,
    );
    expect(nextTryAt(created, RETRY_DELAYS_MS.length + 1, new Date(start))).toBeUndefined();
  });
});

describe("DELETE /api/webhooks/:id", () => {
  it("removes the endpoint with its waiting deliveries: nothing more is sent", async () => {
    const hook = await addWebhook("removed", ["user.created"]);
    receiver.answer(hook.path, [500]);
    const { body: queued } = await sendTest(hook._id);
    await tried(queued._id, 1);
    const reply = await api.delete(`/api/webhooks/${hook._id}`, { token: admin.token });
    expect(reply.status, reply.text).toBe(204);
    const left = await server.app.deps.db
      .selectFrom("outbox")
      .select("id")
      .where("webhook_id", "=", hook._id)
      .execute();
    expect(left).toEqual([]);
    expectError(await deliveriesOf(hook._id), 404, "Webhook not found");
    expectError(await sendTest(hook._id), 404, "Webhook not found");
    expectError(await api.delete(`/api/webhooks/${hook._id}`, { token: admin.token }), 404);
    const list = await api.get<CreatedWebhook[]>("/api/webhooks", { token: admin.token });
    expect(list.body.map((row) => row._id)).not.toContain(hook._id);
    // Events after it go elsewhere, never to it.
    await addPost(api, member, { category, title: "After the removal" });
    await settle(700);
    expect(receiver.at(hook.path)).toHaveLength(1);
  });
});

describe("two instances sharing one outbox", () => {
  it("send each delivery once", async () => {
    // A second server on the same database (the SQLite file, or the PostgreSQL database).
    const second = await startTestServer(
      {
        WEBHOOK_ALLOW_PRIVATE: "on",
        ...(server.config.databaseUrl
          ? { DATABASE_URL: server.config.databaseUrl }
          : { DATA_DIR: server.config.dataDir }),
      },
      FAST,
    );
    try {
      const apiB = client(second.url);
      const adminB = await signInAdmin(second, apiB);
      const hook = await addWebhook("shared", ["user.created"]);
      // Slow to answer, so both instances are sending at the same time.
      receiver.slow(hook.path, 150);
      const replies = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          sendTest(hook._id, i % 2 === 0 ? { api, admin } : { api: apiB, admin: adminB }),
        ),
      );
      for (const reply of replies) expect(reply.status, reply.text).toBe(201);
      const queued = replies.map((reply) => reply.body._id).sort();
      await waitFor(() => receiver.at(hook.path).length >= 20, "20 deliveries", 20_000);
      await settle(1000);
      const received = receiver.at(hook.path);
      const ids = received.map((hookReceived) => hookReceived.headers["webhook-id"] ?? "");
      expect(ids.sort()).toEqual(queued);
      for (const one of received) expect(verifiedBody(one, hook.secret).type).toBe("webhook.test");
      const rows = await server.app.deps.db
        .selectFrom("outbox")
        .select(["status", "attempts"])
        .where("webhook_id", "=", hook._id)
        .execute();
      expect(rows).toHaveLength(20);
      expect(rows.every((row) => row.status === "delivered" && row.attempts === 1)).toBe(true);
    } finally {
      await second.close();
    }
  });

  it("claims each due delivery for one instance only, however many claim at once", async () => {
    const second = await startTestServer(
      {
        WEBHOOK_ALLOW_PRIVATE: "on",
        ...(server.config.databaseUrl
          ? { DATABASE_URL: server.config.databaseUrl }
          : { DATA_DIR: server.config.dataDir }),
      },
      FAST,
    );
    try {
      const hook = await addWebhook("claimed", ["user.created"]);
      // Thirty due at once, queued straight into the outbox so no worker is woken for them.
      const now = new Date();
      const rows = Array.from({ length: 30 }, () =>
        pendingRow(now, {
          id: randomUUID(),
          channel: "webhook",
          topic: "webhook.test",
          webhook_id: hook._id,
          payload: JSON.stringify({ type: "webhook.test", timestamp: now, data: {} }),
        }),
      );
      await server.app.deps.db.insertInto("outbox").values(rows).execute();
      // Both instances' claims side by side (and their own workers too, every 200 ms).
      const claims = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          claimDue(i % 2 === 0 ? server.app.deps : second.app.deps, "webhook", webhookRules, {
            limit: 5,
          }),
        ),
      );
      const claimed = claims.flat().map((delivery) => delivery.id);
      expect(new Set(claimed).size).toBe(claimed.length);
      // What the claims here did not take, the workers sent, each once; nothing went twice.
      const rest = rows.map((row) => row.id).filter((id) => !claimed.includes(id));
      await waitFor(() => receiver.at(hook.path).length >= rest.length, "the rest", 10_000);
      await settle(700);
      const sent = receiver.at(hook.path).map((received) => received.headers["webhook-id"] ?? "");
      expect(sent.sort()).toEqual(rest.sort());
      // The claimed ones wait under their lease, one try counted each.
      for (const id of claimed) {
        expect(await rowOf(id)).toMatchObject({ status: "pending", attempts: 1 });
      }
    } finally {
      await second.close();
    }
  });
});

describe("with WEBHOOK_ALLOW_PRIVATE off (the default)", () => {
  let guarded: TestServer;
  let guardedApi: Client;
  let guardedAdmin: TestUser;

  beforeAll(async () => {
    guarded = await startTestServer({}, FAST);
    guardedApi = client(guarded.url);
    guardedAdmin = await signInAdmin(guarded, guardedApi);
  });
  afterAll(() => guarded.close());

  const create = (url: string) =>
    guardedApi.post<CreatedWebhook>(
      "/api/webhooks",
      { url, events: ["post.published"] },
      { token: guardedAdmin.token },
    );

  it.each([
    () => `http://127.0.0.1:${String(receiver.port)}/hook`,
    () => "http://localhost/hook",
    () => "http://[::1]/hook",
    () => "http://10.0.0.1/hook",
    () => "http://169.254.169.254/latest/meta-data/",
    () => "http://192.168.1.1/",
    () => "http://172.16.0.5/",
    () => "http://100.64.0.1/",
    () => "http://0.0.0.0/",
    () => "https://[fd00::1]/",
    () => "http://[fe80::1]/",
    () => "http://[::ffff:127.0.0.1]/",
    // Other spellings of 127.0.0.1 that URL parsers accept.
    () => "http://2130706433/",
    () => "http://0x7f.1/",
    () => "http://127.1/",
  ])("refuses a private or local address at creation (%#)", async (urlOf) => {
    const url = urlOf();
    const reply = await create(url);
    expectError(reply, 400, "URL must point at a public address, not a private or local network");
    expect(fieldError(reply, "url")).toBe(
      "URL must point at a public address, not a private or local network",
    );
  });

  it("refuses a host name that does not resolve", async () => {
    expectError(
      await create("http://nonexistent.invalid/hook"),
      400,
      "URL's host name could not be found",
    );
    const rows = await guarded.app.deps.db.selectFrom("webhooks").select("id").execute();
    expect(rows).toEqual([]);
  });

  it("takes public addresses", async () => {
    for (const url of ["http://93.184.216.34/hook", "https://[2606:4700::1111]/hook"]) {
      const reply = await create(url);
      expect(reply.status, reply.text).toBe(201);
      const removed = await guardedApi.delete(`/api/webhooks/${reply.body._id}`, {
        token: guardedAdmin.token,
      });
      expect(removed.status).toBe(204);
    }
  });

  it.each([
    ["an address", (port: string) => `http://127.0.0.1:${port}`],
    ["a name", (port: string) => `http://localhost:${port}`],
  ])(
    "checks again at every delivery: a webhook now pointing at %s on this machine gets nothing",
    async (_what, base) => {
      // Made while public; then its name resolves privately (DNS rebinding), or it is changed.
      const created = await create("http://93.184.216.34/hook");
      expect(created.status, created.text).toBe(201);
      const endpoint = receiver.endpoint("rebound");
      await guarded.app.deps.db
        .updateTable("webhooks")
        .set({ url: `${base(String(receiver.port))}${endpoint.path}` })
        .where("id", "=", created.body._id)
        .execute();
      const on = { api: guardedApi, admin: guardedAdmin };
      const test = await sendTest(created.body._id, on);
      expect(test.status, test.text).toBe(201);
      const row = await tried(test.body._id, 1, 0, guarded);
      expect(row).toMatchObject({ status: "pending", attempts: 1, response_status: null });
      expect(row.last_error).toMatch(/private network/);
      expect((await deliveriesOf(created.body._id, "", on)).body).toEqual([
        expect.objectContaining({ status: "pending", attempts: 1, responseStatus: null }),
      ]);
      expect(receiver.at(endpoint.path)).toHaveLength(0);
      await guardedApi.delete(`/api/webhooks/${created.body._id}`, { token: guardedAdmin.token });
    },
  );
});

describe("isPrivateAddress", () => {
  it.each([
    ["127.0.0.1", true],
    ["127.255.255.254", true],
    ["10.1.2.3", true],
    ["172.16.0.1", true],
    ["172.31.255.255", true],
    ["192.168.0.10", true],
    ["169.254.169.254", true],
    ["100.64.0.1", true],
    ["0.0.0.0", true],
    ["224.0.0.1", true],
    ["255.255.255.255", true],
    ["::1", true],
    ["::", true],
    ["fe80::1", true],
    ["fc00::1", true],
    ["fd12:3456::1", true],
    ["ff02::1", true],
    ["::ffff:127.0.0.1", true],
    ["::ffff:7f00:1", true],
    ["::ffff:10.0.0.1", true],
    ["::ffff:a9fe:a9fe", true],
    ["64:ff9b::7f00:1", true],
    ["2002:7f00:1::", true],
    ["not an address", true],
    ["", true],
    ["93.184.216.34", false],
    ["8.8.8.8", false],
    ["172.32.0.1", false],
    ["1.1.1.1", false],
    ["2606:4700::1111", false],
    ["2001:4860:4860::8888", false],
    ["::ffff:93.184.216.34", false],
  ])("%j → %s", (address, expected) => {
    expect(isPrivateAddress(address)).toBe(expected);
  });
});
