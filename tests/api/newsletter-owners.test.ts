import { randomUUID } from "node:crypto";
import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import {
  importSkipReasons as reasons,
  SUBSCRIBER_IMPORT_CONFIRMATIONS_MAX,
  SUBSCRIBER_IMPORT_MAX_BYTES,
  SUBSCRIBER_IMPORT_MAX_ROWS,
  subscriberMessages as messages,
} from "../../contract/newsletter.js";
import { buildUser, type TestUser } from "../support/factories.js";
import type { Reply } from "../support/http.js";
import { readOutbox } from "../support/mail.js";
import type { ErrorBody } from "../support/post-fixtures.js";
import { openTestSite } from "../support/site.js";

// The owners' side of newsletters (DESIGN.md 11, "Newsletters"; decision 028): an admin's list of
// every subscription, a member's of those to them as a writer; removing one; the list as CSV; and
// importing Ghost's and Substack's exports, with consent (active at once) or without (each new
// address mailed the confirmation a subscribe sends, read here from the mail outbox).

const { server, api, admin, users } = await openTestSite({ users: ["writer", "other"] });
const { writer, other } = users;
const db = server.app.deps.db;

type Status = "pending" | "active" | "unsubscribed" | "bounced";

interface Subscription {
  _id: string;
  email: string;
  scope: "site" | "author";
  authorId?: string;
  status: Status;
  createdAt: string;
}
interface SubscriberList {
  total: number;
  subscribers: Subscription[];
}
interface ImportAnswer {
  imported: number;
  skipped: { line: number; reason: string }[];
}
interface StatsAnswer {
  subscribers: number;
  daily: { date: string; subscribers: number }[];
}

const LIST = "/api/newsletter/subscribers";
const CSV = "/api/newsletter/subscribers.csv";
const IMPORT = "/api/newsletter/subscribers/import";

/** Minutes apart, so "newest first" has one answer. */
let clockTick = 0;
/** A subscription written as the newsletter's own code writes it. */
async function stored(
  email: string,
  scope: TestUser | "site",
  status: Status = "active",
): Promise<string> {
  clockTick += 1;
  const at = new Date(Date.UTC(2024, 0, 1) + clockTick * 60_000).toISOString();
  const id = randomUUID();
  await db
    .insertInto("subscriptions")
    .values({
      id,
      email,
      scope_key: scope === "site" ? "site" : scope.id,
      author_id: scope === "site" ? null : scope.id,
      status,
      created_at: at,
      confirmed_at: status === "pending" ? null : at,
      ended_at: status === "unsubscribed" || status === "bounced" ? at : null,
    })
    .execute();
  return id;
}

/** Where an address stands in a scope, or undefined: no subscription there. */
async function statusOf(email: string, scope: TestUser | "site") {
  const row = await db
    .selectFrom("subscriptions")
    .select(["status", "confirmed_at"])
    .where("email", "=", email)
    .where("scope_key", "=", scope === "site" ? "site" : scope.id)
    .executeTakeFirst();
  return row?.status;
}

const listOf = (who: TestUser, query = "") =>
  api.get<SubscriberList>(`${LIST}${query}`, { token: who.token });

const importCsv = (who: TestUser, csv: string | Buffer, query = "") =>
  api.raw("POST", `${IMPORT}${query}`, csv, {
    token: who.token,
    headers: { "content-type": "text/csv" },
  }) as Promise<Reply<ImportAnswer & ErrorBody>>;

const importForm = (who: TestUser, csv: string | Buffer, fields: Record<string, string> = {}) =>
  api.form<ImportAnswer & ErrorBody>(
    "POST",
    IMPORT,
    {
      fields,
      file: {
        bytes: Buffer.from(csv),
        filename: "subscribers.csv",
        contentType: "text/csv",
        field: "file",
      },
    },
    { token: who.token },
  );

function expectRefusal(reply: Reply, status: number, message?: string) {
  expect(reply.status, reply.text).toBe(status);
  const body = reply.body as Partial<ErrorBody>;
  if (message === undefined) expect(typeof body.message).toBe("string");
  else expect(body.message).toBe(message);
}

/** The mails the outbox holds for an address. */
const mailsTo = async (address: string) =>
  (await readOutbox(server.dataDir)).filter((mail) => mail.to.toLowerCase().includes(address));

describe("refusals", () => {
  it("asks for a sign-in: 401 on every owners' call", async () => {
    expectRefusal(await api.get(LIST), 401);
    expectRefusal(await api.get(CSV), 401);
    expectRefusal(await api.delete(`${LIST}/${randomUUID()}`), 401);
    expectRefusal(
      await api.raw("POST", IMPORT, "email\na@example.com\n", {
        headers: { "content-type": "text/csv" },
      }),
      401,
    );
    expectRefusal(await api.get(LIST, { token: "not-a-token-at-all-0123456789" }), 401);
  });

  it("takes a known status, a short search and a page from 1: 400 otherwise", async () => {
    for (const path of [LIST, CSV]) {
      for (const status of ["gone", "ACTIVE", "active,pending", "1"]) {
        const reply = await api.get<ErrorBody>(`${path}?status=${status}`, {
          token: writer.token,
        });
        expectRefusal(reply, 400, messages.statusInvalid);
        expect(reply.body.errors?.status).toBe(messages.statusInvalid);
      }
      const long = await api.get<ErrorBody>(`${path}?q=${"x".repeat(255)}`, {
        token: writer.token,
      });
      expectRefusal(long, 400, messages.searchTooLong);
    }
    for (const page of ["0", "-1", "x", "1.5"]) {
      expectRefusal(await listOf(writer, `?pageNumber=${page}`), 400);
    }
  });

  it("refuses an import with no email column, no file, a body that is not CSV or bad consent", async () => {
    const before = await db.selectFrom("subscriptions").select("id").execute();
    expectRefusal(
      await importCsv(writer, "name,address\nAnn,ann@example.com\n"),
      400,
      messages.noEmailColumn,
    );
    expectRefusal(
      await importForm(writer, "id,name\n1,Ann\n", { consent: "yes" }),
      400,
      messages.noEmailColumn,
    );
    // A header alone is a list of none; no header at all is no list.
    expect((await importCsv(writer, "email\n")).body).toEqual({ imported: 0, skipped: [] });
    expectRefusal(await importCsv(writer, "\n\n"), 400, messages.noEmailColumn);
    const broken = await importCsv(writer, 'email,name\n"open@example.com,Ann\n');
    expectRefusal(broken, 400);
    expect(broken.body.message).toMatch(/^The file is not valid CSV: /);
    expectRefusal(
      await importCsv(writer, "email\na@example.com\n", "?consent=maybe"),
      400,
      messages.consentInvalid,
    );
    expectRefusal(
      await api.post(IMPORT, { email: "a@example.com" }, { token: writer.token }),
      400,
      messages.noFile,
    );
    const noFile = await api.form(
      "POST",
      IMPORT,
      { fields: { consent: "yes" } },
      { token: writer.token },
    );
    expectRefusal(noFile, 400, messages.noFile);
    expect(await db.selectFrom("subscriptions").select("id").execute()).toEqual(before);
  });

  it("refuses a file over 5 MB (413) and over 50,000 rows (400), storing nothing", async () => {
    const huge = Buffer.alloc(SUBSCRIBER_IMPORT_MAX_BYTES + 1, "a");
    huge.write("email\n");
    expectRefusal(await importCsv(writer, huge), 413, messages.tooLarge);
    expectRefusal(await importForm(writer, huge), 413, messages.tooLarge);
    const rows = Array.from(
      { length: SUBSCRIBER_IMPORT_MAX_ROWS + 1 },
      (_, n) => `row${String(n)}@many.example`,
    );
    const many = await importCsv(writer, `email\n${rows.join("\n")}\n`, "?consent=yes");
    expectRefusal(many, 400, messages.tooManyRows);
    // The most rows it takes are taken (consent: no mail to send).
    const most = await importCsv(writer, `email\n${rows.slice(1).join("\n")}\n`, "?consent=yes");
    expect(most.status, most.text).toBe(200);
    expect(most.body.imported).toBe(SUBSCRIBER_IMPORT_MAX_ROWS);
    // All of them in the export, read a batch at a time (one time, so by id within it).
    const exported = await api.get(`${CSV}?q=@many.example`, { token: writer.token });
    const lines = exported.text.trimEnd().split("\r\n").slice(1);
    expect(lines).toHaveLength(SUBSCRIBER_IMPORT_MAX_ROWS);
    expect(new Set(lines.map((line) => line.split(",")[0])).size).toBe(SUBSCRIBER_IMPORT_MAX_ROWS);
    await db.deleteFrom("subscriptions").where("email", "like", "%@many.example").execute();
  });

  it("refuses an import without consent that would mail too many confirmations", async () => {
    const rows = Array.from(
      { length: SUBSCRIBER_IMPORT_CONFIRMATIONS_MAX + 1 },
      (_, n) => `ask${String(n)}@confirm.example`,
    );
    const reply = await importCsv(writer, `email\n${rows.join("\n")}\n`);
    expectRefusal(reply, 400, messages.tooManyConfirmations);
    const stored = await db
      .selectFrom("subscriptions")
      .select("id")
      .where("email", "like", "%@confirm.example")
      .execute();
    expect(stored).toEqual([]);
    expect(await mailsTo("@confirm.example")).toEqual([]);
  });

  it("keeps each owner to their own subscribers: others' are 404, never 403", async () => {
    const mine = await stored("reach-mine@example.com", writer);
    const theirs = await stored("reach-theirs@example.com", other);
    const site = await stored("reach-site@example.com", "site");
    const seen = (await listOf(writer, "?q=reach-")).body;
    expect(seen.subscribers.map((row) => row.email)).toEqual(["reach-mine@example.com"]);
    expect(seen.total).toBe(1);
    const csv = await api.get(`${CSV}?q=reach-`, { token: writer.token });
    expect(csv.text).toContain("reach-mine@example.com");
    expect(csv.text).not.toContain("reach-theirs@example.com");
    expect(csv.text).not.toContain("reach-site@example.com");

    for (const id of [theirs, site, randomUUID(), "not-an-id", "1 OR 1=1"]) {
      expectRefusal(
        await api.delete(`${LIST}/${encodeURIComponent(id)}`, { token: writer.token }),
        404,
        messages.notFound,
      );
    }
    expect(await statusOf("reach-theirs@example.com", other)).toBe("active");
    expect(await statusOf("reach-site@example.com", "site")).toBe("active");
    // A read-only API token reads the list, and changes nothing.
    const token = await api.post<{ token: string }>(
      "/api/tokens",
      { name: "reader", scope: "read" },
      { token: writer.token },
    );
    expect(token.status, token.text).toBe(201);
    const read = { ...writer, token: token.body.token };
    expect((await listOf(read)).status).toBe(200);
    expectRefusal(await api.delete(`${LIST}/${mine}`, { token: read.token }), 403);
    expectRefusal(await importCsv(read, "email\nr@example.com\n"), 403);
    expect(await statusOf("reach-mine@example.com", writer)).toBe("active");
  });
});

describe("the list", () => {
  it("pages newest first, 20 a page, with the total on every page", async () => {
    const pager = await buildUser(server, api);
    for (let n = 1; n <= 25; n += 1) await stored(`page${String(n)}@example.com`, pager);
    const first = await listOf(pager);
    expect(first.status, first.text).toBe(200);
    expect(first.body.total).toBe(25);
    expect(first.body.subscribers.map((row) => row.email)).toEqual(
      Array.from({ length: 20 }, (_, n) => `page${String(25 - n)}@example.com`),
    );
    const second = await listOf(pager, "?pageNumber=2");
    expect(second.body.total).toBe(25);
    expect(second.body.subscribers.map((row) => row.email)).toEqual(
      ["5", "4", "3", "2", "1"].map((n) => `page${n}@example.com`),
    );
    expect((await listOf(pager, "?pageNumber=3")).body).toEqual({ total: 25, subscribers: [] });
  });

  it("answers the Subscription shape: a writer's names its writer, the site's no one", async () => {
    const site = await stored("shape-site@example.com", "site", "pending");
    const author = await stored("shape-author@example.com", writer, "bounced");
    const { body } = await api.get<SubscriberList>(`${LIST}?q=shape-`, { token: admin.token });
    expect(body.subscribers).toEqual([
      {
        _id: author,
        email: "shape-author@example.com",
        scope: "author",
        authorId: writer.id,
        status: "bounced",
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown,
      },
      {
        _id: site,
        email: "shape-site@example.com",
        scope: "site",
        status: "pending",
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown,
      },
    ]);
    expect(Object.keys(body.subscribers[1] ?? {})).not.toContain("authorId");
  });

  it("filters by status and finds addresses by any part, in any case, % and _ as themselves", async () => {
    const finder = await buildUser(server, api);
    await stored("ann.lee@find.example", finder, "active");
    await stored("bob_x@find.example", finder, "pending");
    await stored("bobyx@find.example", finder, "unsubscribed");
    await stored("100%real@find.example", finder, "bounced");
    await stored("1000real@find.example", finder, "active");
    const emails = async (query: string) =>
      (await listOf(finder, query)).body.subscribers.map((row) => row.email).sort();
    expect(await emails("?q=ANN.LEE")).toEqual(["ann.lee@find.example"]);
    expect(await emails("?q=b_x")).toEqual(["bob_x@find.example"]);
    expect(await emails("?q=0%25r")).toEqual(["100%real@find.example"]);
    expect(await emails("?q=%20FIND.example%20")).toHaveLength(5);
    expect(await emails("?status=active")).toEqual(
      ["1000real@find.example", "ann.lee@find.example"].sort(),
    );
    expect(await emails("?status=pending&q=bob")).toEqual(["bob_x@find.example"]);
    expect(await emails("?status=unsubscribed")).toEqual(["bobyx@find.example"]);
    expect(await emails("?status=bounced")).toEqual(["100%real@find.example"]);
    // Empty means all, as a page's form sends it.
    expect(await emails("?status=&q=")).toHaveLength(5);
    expect((await listOf(finder, "?status=active")).body.total).toBe(2);
  });

  it("shows an admin every subscription, the site's and each writer's", async () => {
    await stored("everyone@all.example", "site");
    await stored("everyone@all.example", writer);
    await stored("everyone@all.example", other);
    const { body } = await api.get<SubscriberList>(`${LIST}?q=@all.example`, {
      token: admin.token,
    });
    expect(body.total).toBe(3);
    expect(body.subscribers.map((row) => row.authorId ?? "site").sort()).toEqual(
      ["site", writer.id, other.id].sort(),
    );
    // The writer sees their one.
    expect((await listOf(writer, "?q=@all.example")).body.total).toBe(1);
  });
});

describe("removing a subscriber", () => {
  it("lets a writer remove their own and an admin anyone's: 204, then gone (404)", async () => {
    const own = await stored("remove-own@example.com", writer);
    const anyone = await stored("remove-any@example.com", other);
    const reply = await api.delete(`${LIST}/${own}`, { token: writer.token });
    expect(reply.status, reply.text).toBe(204);
    expect(reply.text).toBe("");
    expect(await statusOf("remove-own@example.com", writer)).toBeUndefined();
    expectRefusal(await api.delete(`${LIST}/${own}`, { token: writer.token }), 404);
    expect((await api.delete(`${LIST}/${anyone}`, { token: admin.token })).status).toBe(204);
    expect(await statusOf("remove-any@example.com", other)).toBeUndefined();
    expect((await listOf(writer, "?q=remove-")).body.total).toBe(0);
  });
});

describe("the CSV export", () => {
  it("lists the owner's subscribers as quoted CSV, formulas made text", async () => {
    const exporter = await buildUser(server, api);
    const addresses = [
      "plain@csv.example",
      '=HYPERLINK("http://evil.example")@csv.example',
      "+1@csv.example",
      "-2@csv.example",
      "@3@csv.example",
      "\t4@csv.example",
      "\r5@csv.example",
      "a,b@csv.example",
    ];
    for (const email of addresses) await stored(email, exporter);
    await stored("left@csv.example", exporter, "unsubscribed");
    await stored("not-theirs@csv.example", other);
    const reply = await api.get(CSV, { token: exporter.token });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(reply.headers.get("content-disposition")).toMatch(
      /^attachment; filename="subscribers-\d{4}-\d\d-\d\d\.csv"$/,
    );
    const lines = reply.text.split("\r\n");
    expect(lines[0]).toBe("email,scope,author,status,created_at");
    expect(reply.text).toContain(
      `"'=HYPERLINK(""http://evil.example"")@csv.example",author,${exporter.username},active,`,
    );
    expect(reply.text).toContain(`\r\n"a,b@csv.example",author,`);
    const records = parse<Record<string, string>>(reply.text, { columns: true });
    // Newest first: the unsubscribed one was stored last.
    expect(records.map((row) => row.email)).toEqual([
      "left@csv.example",
      "a,b@csv.example",
      "'\r5@csv.example",
      "'\t4@csv.example",
      "'@3@csv.example",
      "'-2@csv.example",
      "'+1@csv.example",
      `'=HYPERLINK("http://evil.example")@csv.example`,
      "plain@csv.example",
    ]);
    expect(records[0]).toMatchObject({
      scope: "author",
      author: exporter.username,
      status: "unsubscribed",
    });
    expect(records[0]?.created_at).toMatch(/^2024-01-01T/);

    const active = await api.get(`${CSV}?status=active`, { token: exporter.token });
    const activeRows = parse<Record<string, string>>(active.text, { columns: true });
    expect(activeRows).toHaveLength(addresses.length);
    expect(activeRows.every((row) => row.status === "active")).toBe(true);
  });

  it("gives an admin every subscription, the site's with no author", async () => {
    await stored("admin-export@csv2.example", "site", "pending");
    await stored("admin-export@csv2.example", writer, "active");
    const reply = await api.get(`${CSV}?q=@csv2.example`, { token: admin.token });
    const lines = reply.text.split("\r\n");
    expect(lines).toHaveLength(4);
    expect(lines[0]).toBe("email,scope,author,status,created_at");
    expect(lines[1]).toMatch(
      new RegExp(`^admin-export@csv2\\.example,author,${writer.username},active,2024-[\\d:.TZ-]+$`),
    );
    expect(lines[2]).toMatch(/^admin-export@csv2\.example,site,,pending,2024-[\d:.TZ-]+$/);
    expect(lines[3]).toBe("");
  });
});

describe("importing", () => {
  // Ghost's members export (Settings > Members > Export): BOM, CRLF, quoted commas and newlines.
  const ghost = [
    "\uFEFFid,email,name,note,subscribed_to_emails,complimentary_plan,stripe_customer_id,created_at,deleted_at,labels,tiers",
    "64f0a1,ann@ghost.example,Ann Lee,,true,false,,2023-01-02T10:00:00.000Z,,,",
    '64f0a2,Bob@Ghost.EXAMPLE,"Bob, the Builder","Met at the fair,\r\nlikes ""long"" posts",true,false,cus_1,2023-02-03T10:00:00.000Z,,"vip, early",Free',
    "64f0a3,cat@ghost.example,Cat,,false,false,,2023-03-04T10:00:00.000Z,,,",
    "64f0a4,not-an-address,Dan,,true,false,,2023-03-05T10:00:00.000Z,,,",
    "64f0a5,ANN@ghost.example,Ann again,,true,false,,2023-03-06T10:00:00.000Z,,,",
    "64f0a6,already@ghost.example,Al,,true,false,,2023-03-07T10:00:00.000Z,,,",
    "64f0a7,bounced@ghost.example,Bo,,true,false,,2023-03-08T10:00:00.000Z,,,",
    "64f0a8,waiting@ghost.example,Wes,,true,false,,2023-03-09T10:00:00.000Z,,,",
    "64f0a9,gone@ghost.example,Gus,,true,false,,2023-03-10T10:00:00.000Z,,,",
    "",
    "64f0b0, eve@ghost.example ,Eve,,TRUE,false,,2023-03-11T10:00:00.000Z,,,",
  ].join("\r\n");

  it("imports Ghost's members export to the site with consent: active at once, no mail", async () => {
    await stored("already@ghost.example", "site");
    // Bounced anywhere (here to a writer) is never mailed again, nor imported.
    await stored("bounced@ghost.example", writer, "bounced");
    await stored("waiting@ghost.example", "site", "pending");
    await stored("gone@ghost.example", "site", "unsubscribed");
    const reply = await importCsv(admin, `${ghost}\r\n`, "?consent=yes");
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual({
      imported: 4,
      skipped: [
        { line: 5, reason: reasons.unsubscribedInExport },
        { line: 6, reason: reasons.invalid },
        { line: 7, reason: "the same address as line 2" },
        { line: 8, reason: reasons.active },
        { line: 9, reason: reasons.bounced },
        { line: 11, reason: reasons.unsubscribed },
      ],
    });
    for (const email of [
      "ann@ghost.example",
      "bob@ghost.example",
      "waiting@ghost.example",
      "eve@ghost.example",
    ]) {
      expect(await statusOf(email, "site"), email).toBe("active");
    }
    expect(await statusOf("cat@ghost.example", "site")).toBeUndefined();
    expect(await statusOf("bounced@ghost.example", "site")).toBeUndefined();
    expect(await statusOf("gone@ghost.example", "site")).toBe("unsubscribed");
    expect(await mailsTo("@ghost.example")).toEqual([]);
    // The same file again: nothing new.
    const again = await importCsv(admin, ghost, "?consent=yes");
    expect(again.body.imported).toBe(0);
    expect(again.body.skipped.filter((row) => row.reason === reasons.active)).toHaveLength(5);
  });

  // Substack's subscribers export (Settings > Subscribers > Export), LF line ends.
  const substack = [
    "email,active_subscription,expiry,plan,email_disabled,created_at",
    "reader1@substack.example,false,,free,false,2024-01-01T00:00:00.000Z",
    '"reader2@substack.example",true,2025-01-01T00:00:00.000Z,"annual, founding",false,2024-01-02T00:00:00.000Z',
    "reader3@substack.example,false,,free,true,2024-01-03T00:00:00.000Z",
    "site-only@substack.example,false,,free,false,2024-01-04T00:00:00.000Z",
  ].join("\n");

  it("imports Substack's export to the member without consent: each is mailed a confirmation", async () => {
    const newsletterWriter = await buildUser(server, api);
    // On the site's list already: the writer's list is another.
    await stored("site-only@substack.example", "site");
    const reply = await importForm(newsletterWriter, substack);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual({
      imported: 3,
      skipped: [{ line: 4, reason: reasons.unsubscribedInExport }],
    });
    for (const email of ["reader1", "reader2", "site-only"].map((n) => `${n}@substack.example`)) {
      expect(await statusOf(email, newsletterWriter), email).toBe("pending");
      const mails = await mailsTo(email);
      expect(mails, email).toHaveLength(1);
      expect(mails[0]?.subject).toContain(newsletterWriter.username);
    }
    expect(await statusOf("reader3@substack.example", newsletterWriter)).toBeUndefined();
    expect(await mailsTo("reader3@substack.example")).toEqual([]);
    // The member's list is theirs: nothing went to the site's.
    expect(await statusOf("reader1@substack.example", "site")).toBeUndefined();

    // The mailed link confirms, as a subscribe's does.
    const [mail] = await mailsTo("reader1@substack.example");
    const [, id = "", token = ""] =
      /\/newsletter\/confirm\/([^/\s"]+)\/([A-Za-z0-9_-]+)/.exec(mail?.text ?? "") ?? [];
    expect((await api.post(`/api/newsletter/confirm/${id}/${token}`)).status).toBe(200);
    expect(await statusOf("reader1@substack.example", newsletterWriter)).toBe("active");

    // Again without consent: no second mail to anyone waiting.
    const again = await importForm(newsletterWriter, substack);
    expect(again.body).toEqual({
      imported: 0,
      skipped: [
        { line: 2, reason: reasons.active },
        { line: 3, reason: reasons.pending },
        { line: 4, reason: reasons.unsubscribedInExport },
        { line: 5, reason: reasons.pending },
      ],
    });
    expect(await mailsTo("reader2@substack.example")).toHaveLength(1);
    // With consent (a form field), those waiting are subscribed.
    const consented = await importForm(newsletterWriter, substack, { consent: "yes" });
    expect(consented.body.imported).toBe(2);
    expect(await statusOf("reader2@substack.example", newsletterWriter)).toBe("active");
    expect(await statusOf("site-only@substack.example", newsletterWriter)).toBe("active");
  });

  it("takes back this site's own export, leaving out those it marks unsubscribed or bounced", async () => {
    const mover = await buildUser(server, api);
    await stored("kept@move.example", mover);
    await stored("left@move.example", mover, "unsubscribed");
    await stored("bounced@move.example", mover, "bounced");
    const exported = (await api.get(CSV, { token: mover.token })).text;
    const target = await buildUser(server, api);
    const reply = await importCsv(target, exported, "?consent=yes");
    expect(reply.body.imported).toBe(1);
    expect(reply.body.skipped.map((row) => row.reason)).toEqual([
      reasons.unsubscribedInExport,
      reasons.unsubscribedInExport,
    ]);
    expect(await statusOf("kept@move.example", target)).toBe("active");
  });

  it("is rate limited, as the API reference says", async () => {
    const document = await api.get<{
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    }>("/api/openapi.json");
    const operation = document.body.paths["/api/newsletter/subscribers/import"]?.post;
    expect(Object.keys(operation?.responses ?? {}).sort()).toEqual(
      ["200", "400", "401", "403", "413", "415", "429"].sort(),
    );
  });
});

describe("stats", () => {
  const todayOf = (stats: StatsAnswer) =>
    stats.daily.find((day) => day.date === new Date().toISOString().slice(0, 10))?.subscribers ?? 0;
  const statsOf = async (path: string, who: TestUser) => {
    const reply = await api.get<StatsAnswer>(path, { token: who.token });
    expect(reply.status, reply.text).toBe(200);
    return reply.body;
  };

  it("counts the writer's and the site's active subscribers, and those new today", async () => {
    const counted = await buildUser(server, api);
    const siteBefore = await statsOf("/api/admin/stats", admin);
    expect(await statsOf("/api/stats/me", counted)).toMatchObject({ subscribers: 0 });

    // Two imported with consent, one confirmed from its mail, one left waiting.
    await importCsv(counted, "email\none@stats.example\ntwo@stats.example\n", "?consent=yes");
    await importCsv(counted, "email\nthree@stats.example\nfour@stats.example\n");
    const [mail] = await mailsTo("three@stats.example");
    const [, id = "", token = ""] =
      /\/newsletter\/confirm\/([^/\s"]+)\/([A-Za-z0-9_-]+)/.exec(mail?.text ?? "") ?? [];
    expect((await api.post(`/api/newsletter/confirm/${id}/${token}`)).status).toBe(200);
    // The same address on the site's list too: one more for the site (once per scope).
    await importCsv(admin, "email\none@stats.example\n", "?consent=yes");

    const mine = await statsOf("/api/stats/me", counted);
    expect(mine.subscribers).toBe(3);
    expect(todayOf(mine)).toBe(3);
    const site = await statsOf("/api/admin/stats", admin);
    expect(site.subscribers - siteBefore.subscribers).toBe(4);
    expect(todayOf(site) - todayOf(siteBefore)).toBe(4);

    // Removed: counted no more.
    const { body } = await listOf(counted, "?q=one@stats");
    await api.delete(`${LIST}/${body.subscribers[0]?._id ?? ""}`, { token: counted.token });
    expect((await statsOf("/api/stats/me", counted)).subscribers).toBe(2);
  });
});
