import { describe, expect, it } from "vitest";
import type { Clock } from "../../core/shared/clock.js";
import { buildUser, loginAs, type TestUser } from "../support/factories.js";
import { readOutbox } from "../support/mail.js";
import { addPost } from "../support/post-fixtures.js";
import { openTestSite } from "../support/site.js";

/**
 * A suspension's terms (issue 33): a reason the member is told, an end after which it lifts by
 * itself, the member mailed when it starts; a report's suspension logged once.
 */
let now = Date.parse("2031-05-01T09:00:00Z");
const clock: Clock = () => new Date(now);
const DAY = 24 * 3600 * 1000;
const { server, api, admin } = await openTestSite({ app: { clock }, categories: ["General"] });

const suspend = (id: string, body: object) =>
  api.put<{ message: string; errors?: Record<string, string> }>(`/api/users/suspend/${id}`, body, {
    token: admin.token,
  });

const row = (id: string) =>
  server.app.deps.db
    .selectFrom("users")
    .select(["suspended_at", "suspension_reason", "suspended_until"])
    .where("id", "=", id)
    .executeTakeFirstOrThrow();

const login = (user: TestUser) =>
  api.post<{ message: string; reason?: string | null; suspendedUntil?: string | null }>(
    "/api/auth/login",
    { email: user.email, password: user.password },
  );

describe("the terms of a suspension", () => {
  it("are mailed only to an address the account has verified", async () => {
    const unverified = await buildUser(server, api);
    await server.app.deps.db
      .updateTable("users")
      .set({ is_verified: 0, verified_email_key: null })
      .where("id", "=", unverified.id)
      .execute();
    const reply = await suspend(unverified.id, { suspended: true, reason: "Spam sign-up" });
    expect(reply.status).toBe(200);
    const mail = (await readOutbox(server.config.dataDir)).filter((m) => m.to === unverified.email);
    expect(mail).toEqual([]);
  });

  it("refuses a reason over 500 characters, an end that is not a time, and one already past: 400, nothing changed", async () => {
    const member = await buildUser(server, api);
    const cases: [object, string, string][] = [
      [{ reason: "x".repeat(501) }, "reason", "Reason must be at most 500 characters long"],
      [{ reason: 42 }, "reason", "Reason must be text"],
      [
        { until: "next tuesday" },
        "until",
        "End must be a date and time such as 2026-12-01T00:00:00Z",
      ],
      [
        { until: "2031-02-30T00:00:00Z" },
        "until",
        "End must be a date and time such as 2026-12-01T00:00:00Z",
      ],
      // Past year 9999 its ISO text would sort before today's, and lift at once.
      [
        { until: "9999-12-31T23:00:00-05:00" },
        "until",
        "End must be a date and time such as 2026-12-01T00:00:00Z",
      ],
      [{ until: new Date(now - 1000).toISOString() }, "until", "End must be in the future"],
      [{ until: new Date(now).toISOString() }, "until", "End must be in the future"],
    ];
    for (const [terms, field, message] of cases) {
      const reply = await suspend(member.id, { suspended: true, ...terms });
      expect(reply.status, JSON.stringify(terms)).toBe(400);
      expect(reply.body.errors?.[field]).toBe(message);
      expect((await row(member.id)).suspended_at).toBeNull();
    }
    // The same rules on a report's decision.
    const post = await addPost(api, member, { category: "General" });
    const reader = await buildUser(server, api);
    const report = await api.post<{ _id: string }>(
      "/api/reports",
      { postId: post._id, reason: "spam" },
      { token: reader.token },
    );
    const past = await api.put<{ errors?: Record<string, string> }>(
      `/api/reports/${report.body._id}`,
      { action: "suspend", until: new Date(now - DAY).toISOString() },
      { token: admin.token },
    );
    expect(past.status).toBe(400);
    expect(past.body.errors?.until).toBe("End must be in the future");
    expect((await row(member.id)).suspended_at).toBeNull();
    const open = await api.get<{ _id: string }[]>("/api/reports?status=open", {
      token: admin.token,
    });
    expect(open.body.map((group) => group._id)).toContain(report.body._id);
  });

  it("tells the member the reason and the end, at sign-in and by mail, and lifts by itself once it ends", async () => {
    const member = await buildUser(server, api);
    const post = await addPost(api, member, { category: "General" });
    const until = new Date(now + 3 * DAY).toISOString();
    const reason = "Three posts of advertising in one hour";
    const reply = await suspend(member.id, { suspended: true, reason: `  ${reason} `, until });
    expect(reply.status).toBe(200);
    expect(await row(member.id)).toMatchObject({
      suspension_reason: reason,
      suspended_until: until,
    });

    const refused = await login(member);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      message: "This account is suspended",
      reason,
      suspendedUntil: until,
    });
    const mail = (await readOutbox(server.config.dataDir)).filter((m) => m.to === member.email);
    expect(mail).toHaveLength(1);
    expect(mail[0]?.subject).toContain("account is suspended");
    expect(mail[0]?.text).toContain(`Reason: ${reason}`);
    expect(mail[0]?.text).toContain(`ends on ${until.slice(0, 10)} at ${until.slice(11, 16)} UTC`);
    expect(mail[0]?.text).toContain("To answer, reply to this mail.");

    // A second before the end: still suspended; at the end: signed in, the terms gone.
    now = Date.parse(until) - 1000;
    expect((await login(member)).status).toBe(403);
    now = Date.parse(until);
    const token = await loginAs(api, member.email, member.password);
    expect(await row(member.id)).toEqual({
      suspended_at: null,
      suspension_reason: null,
      suspended_until: null,
    });
    const like = await api.put(`/api/posts/like/${post._id}`, {}, { token });
    expect(like.status).toBe(200);
  });

  it("without terms lasts until an admin restores it, and a restore clears the reason", async () => {
    const member = await buildUser(server, api);
    expect((await suspend(member.id, { suspended: true, reason: "" })).status).toBe(200);
    expect(await row(member.id)).toMatchObject({ suspension_reason: null, suspended_until: null });
    now += 2 * DAY;
    expect((await login(member)).body).toEqual({
      message: "This account is suspended",
      reason: null,
      suspendedUntil: null,
    });
    const mail = (await readOutbox(server.config.dataDir)).find((m) => m.to === member.email);
    expect(mail?.text).toContain("No reason was given.");
    expect(mail?.text).toContain("lasts until an admin lifts it");

    expect((await suspend(member.id, { suspended: true, reason: "Again" })).status).toBe(200);
    expect((await suspend(member.id, { suspended: false })).status).toBe(200);
    expect(await row(member.id)).toEqual({
      suspended_at: null,
      suspension_reason: null,
      suspended_until: null,
    });
    expect((await login(member)).status).toBe(200);
  });

  it("from a report: the terms apply, the mail names the site's contact, and the audit log has one entry", async () => {
    const saved = await api.put(
      "/api/admin/settings",
      {
        title: "Terms Site",
        welcome: "Hello",
        contactPhone: "+1 555 0100",
        contactEmail: "moderators@example.com",
      },
      { token: admin.token },
    );
    expect(saved.status, saved.text).toBe(200);
    const author = await buildUser(server, api);
    const reader = await buildUser(server, api);
    const post = await addPost(api, author, { category: "General" });
    const report = await api.post<{ _id: string }>(
      "/api/reports",
      { postId: post._id, reason: "harassment" },
      { token: reader.token },
    );
    const before = await server.app.deps.db
      .selectFrom("audit_log")
      .select("action")
      .where("target_id", "in", [author.id, post._id])
      .execute();
    expect(before).toEqual([]);
    const until = new Date(now + 7 * DAY).toISOString();
    const decided = await api.put(
      `/api/reports/${report.body._id}`,
      { action: "suspend", reason: "Insults in comments", until },
      { token: admin.token },
    );
    expect(decided.status, decided.text).toBe(200);
    expect((await login(author)).body).toEqual({
      message: "This account is suspended",
      reason: "Insults in comments",
      suspendedUntil: until,
    });
    const entries = await server.app.deps.db
      .selectFrom("audit_log")
      .select("action")
      .where("target_id", "in", [author.id, post._id])
      .execute();
    expect(entries.map((entry) => entry.action)).toEqual(["report.suspend"]);
    const mail = (await readOutbox(server.config.dataDir)).find((m) => m.to === author.email);
    expect(mail?.text).toContain("To answer, write to moderators@example.com.");
  });
});
