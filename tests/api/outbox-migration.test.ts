import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../../core/shared/ids.js";
import { migrateTo, migrateToLatest } from "../../db/connect.js";
import { buildUser, signInAdmin } from "../support/factories.js";
import { client } from "../support/http.js";
import { addCategory, addComment, addPost } from "../support/post-fixtures.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

// Migration 024 (decision 027) moves conversation mail (mail_outbox) and webhook deliveries
// (webhook_deliveries) into the one outbox, with mail_events pointing into it, and back again
// going down: rows keep their ids, states, tries and times both ways, on SQLite and PostgreSQL.

let server: TestServer;
beforeAll(async () => {
  // No worker looks at the tables while they are moved.
  server = await startTestServer({}, { outboxCheckMs: 3_600_000, publishCheckMs: 3_600_000 });
});
afterAll(async () => {
  await server.close();
});

const at = (minutes: number) => new Date(Date.UTC(2026, 10, 1, 12, minutes)).toISOString();

describe("migration 024, the one outbox", () => {
  it("moves mail and webhook rows in and out, keeping every field that was there", async () => {
    const api = client(server.url);
    const admin = await signInAdmin(server, api);
    const category = (await addCategory(api, admin, "Moving")).title;
    const author = await buildUser(server, api);
    const reader = await buildUser(server, api);
    const post = await addPost(api, author, { category });
    const comment = await addComment(api, reader, post._id, "Before the move");
    const { db } = server.app.deps;
    await migrateTo(db, "023-stats");

    const webhookId = newId();
    await sql`insert into webhooks (id, url, events, secret, created_by, created_at)
      values (${webhookId}, 'https://hooks.example.com/a', '["post.published"]', 'whsec_dGVzdA==',
        null, ${at(0)})`.execute(db);
    const [sent, waiting, delivered, failed] = [newId(), newId(), newId(), newId()];
    await sql`insert into mail_outbox (id, recipient_id, attempts, next_attempt_at, sent_at,
        outcome, created_at)
      values (${sent}, ${author.id}, 1, ${at(5)}, ${at(6)}, 'sent', ${at(1)}),
        (${waiting}, ${author.id}, 2, ${at(9)}, null, null, ${at(2)})`.execute(db);
    await sql`insert into mail_events (id, recipient_id, comment_id, kind, mail_id, created_at)
      values (${newId()}, ${author.id}, ${comment._id}, 'comment', ${waiting}, ${at(2)})`.execute(
      db,
    );
    await sql`insert into webhook_deliveries (id, webhook_id, event, payload, status, attempts,
        next_attempt_at, last_attempt_at, response_status, last_error, created_at)
      values (${delivered}, ${webhookId}, 'post.published', '{"a":1}', 'delivered', 1, null,
          ${at(3)}, 200, null, ${at(3)}),
        (${failed}, ${webhookId}, 'post.deleted', '{"b":2}', 'failed', 8, null, ${at(4)}, 500,
          'no', ${at(3)})`.execute(db);

    await migrateToLatest(db);
    const moved = await db.selectFrom("outbox").selectAll().orderBy("created_at").execute();
    expect(moved.map((row) => [row.id, row.channel, row.topic, row.status])).toEqual([
      [sent, "mail", "conversation", "delivered"],
      [waiting, "mail", "conversation", "pending"],
      [delivered, "webhook", "post.published", "delivered"],
      [failed, "webhook", "post.deleted", "failed"],
    ]);
    expect(moved[0]).toMatchObject({ recipient_id: author.id, attempts: 1, finished_at: at(6) });
    expect(moved[1]).toMatchObject({ attempts: 2, next_attempt_at: at(9), finished_at: null });
    expect(moved[2]).toMatchObject({
      webhook_id: webhookId,
      payload: '{"a":1}',
      finished_at: at(3),
    });
    expect(moved[3]).toMatchObject({ attempts: 8, response_status: 500, last_error: "no" });
    // The waiting mail keeps its event, which now goes with it.
    const events = () =>
      db.selectFrom("mail_events").select("mail_id").where("mail_id", "is not", null).execute();
    expect(await events()).toEqual([{ mail_id: waiting }]);
    // The deliveries list reads the moved rows.
    const list = await api.get<{ _id: string; status: string }[]>(
      `/api/webhooks/${webhookId}/deliveries`,
      { token: admin.token },
    );
    expect(list.body.map((row) => [row._id, row.status]).sort()).toEqual(
      [
        [delivered, "delivered"],
        [failed, "failed"],
      ].sort(),
    );

    // Down again: the two tables as they were, mail_events pointing at mail_outbox.
    await migrateTo(db, "023-stats");
    const mails = await sql<{ id: string; sent_at: string | null; outcome: string | null }>`
      select id, sent_at, outcome from mail_outbox order by created_at`.execute(db);
    expect(mails.rows).toEqual([
      { id: sent, sent_at: at(6), outcome: "sent" },
      { id: waiting, sent_at: null, outcome: null },
    ]);
    const hooks = await sql<{ id: string; event: string; status: string }>`
      select id, event, status from webhook_deliveries order by id`.execute(db);
    expect(hooks.rows).toEqual(
      [
        { id: delivered, event: "post.published", status: "delivered" },
        { id: failed, event: "post.deleted", status: "failed" },
      ].sort((a, b) => a.id.localeCompare(b.id)),
    );
    expect(await events()).toEqual([{ mail_id: waiting }]);
    // Its key holds: deleting the mail takes its event with it.
    await sql`delete from mail_outbox where id = ${waiting}`.execute(db);
    expect(await events()).toEqual([]);

    await migrateToLatest(db);
    expect(await db.selectFrom("outbox").select("id").orderBy("created_at").execute()).toEqual(
      [sent, delivered, failed].map((id) => ({ id })),
    );
  });
});
