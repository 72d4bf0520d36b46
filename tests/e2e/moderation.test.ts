import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildUser, signInAdmin, type TestUser } from "../support/factories.js";
import { client, type Client } from "../support/http.js";
import { addCategory, addComment, addPost } from "../support/post-fixtures.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import {
  expectAccessible,
  expectNoProblems,
  launchBrowser,
  openSite,
  shows,
  signIn,
} from "./browser.js";

/** Conversations and moderation (DESIGN.md 9), as members and an admin go through them. */
let server: TestServer;
let browser: Browser;
let api: Client;
let admin: TestUser;
let writer: TestUser;
let reader: TestUser;

beforeAll(async () => {
  server = await startTestServer();
  api = client(server.url);
  admin = await signInAdmin(server, api);
  writer = await buildUser(server, api, { username: "writer" });
  reader = await buildUser(server, api, { username: "reader" });
  await addCategory(api, admin, "Travel");
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser.close();
  await server.close();
});

async function reply(user: TestUser, postId: string, parentId: string, text: string) {
  const answer = await api.post("/api/comments", { text, postId, parentId }, { token: user.token });
  expect(answer.status, answer.text).toBe(201);
}

describe("replies", () => {
  it.each([true, false])(
    "open in place, join the thread, and fold past three (JavaScript %s)",
    async (javaScriptEnabled) => {
      const post = await addPost(api, writer, {
        title: `Lisbon ${String(javaScriptEnabled)}`,
        category: "Travel",
      });
      const first = await addComment(api, reader, post._id, "Which tram did you take?");
      for (const n of [1, 2, 3, 4, 5])
        await reply(writer, post._id, first._id, `Answer ${String(n)}`);
      const site = await openSite(browser, server.config.publicUrl, { javaScriptEnabled });
      await signIn(site, server.config.publicUrl, reader.token);
      const { page } = site;
      await page.goto(`/posts/details/${post._id}`);

      const thread = page.getByRole("listitem").filter({ hasText: "Which tram did you take?" });
      await shows(thread.getByText("Answer 3"));
      expect(await thread.getByText("Answer 4").isVisible()).toBe(false);
      await thread.getByText("Show 2 more").click();
      await shows(thread.getByText("Answer 5"));

      // Reply to a reply: it joins the thread, addressed to the one answered.
      const answer = page.getByRole("article", { name: "Comment by writer" }).filter({
        hasText: "Answer 1",
      });
      await answer.getByText("Reply", { exact: true }).click();
      await answer.getByLabel("Reply to writer").fill("The 28, of course");
      await answer.getByRole("button", { name: "Send reply" }).click();
      // The sixth reply is folded with the others past three (a new page without JavaScript).
      if (!javaScriptEnabled) await thread.getByText("Show 3 more").click();
      await shows(page.getByText("@writer The 28, of course"));
      const replies = page
        .getByRole("listitem")
        .filter({ hasText: "Which tram did you take?" })
        .getByRole("article", { name: "Comment by reader" });
      await shows(replies.filter({ hasText: "@writer The 28, of course" }));
      if (javaScriptEnabled) await expectAccessible(page);
      expectNoProblems(site);
      await site.context.close();
    },
  );

  it("leave 'This comment was deleted' where a comment with replies was", async () => {
    const post = await addPost(api, writer, { title: "Porto", category: "Travel" });
    const first = await addComment(api, reader, post._id, "Best pastries?");
    await reply(writer, post._id, first._id, "Manteigaria");
    const deleted = await api.delete(`/api/comments/${first._id}`, { token: reader.token });
    expect(deleted.status).toBe(200);
    const site = await openSite(browser, server.config.publicUrl);
    await site.page.goto(`/posts/details/${post._id}`);
    await shows(site.page.getByText("This comment was deleted"));
    await shows(site.page.getByText("Manteigaria"));
    expect(await site.page.getByText("Best pastries?").count()).toBe(0);
    expectNoProblems(site);
    await site.context.close();
  });
});

describe("suspension", () => {
  it("ends the member's session at once and refuses their sign-in until restored", async () => {
    const member = await buildUser(server, api, { username: "troll" });
    const post = await addPost(api, writer, { title: "Sintra", category: "Travel" });
    const memberSite = await openSite(browser, server.config.publicUrl);
    await signIn(memberSite, server.config.publicUrl, member.token);
    await memberSite.page.goto(`/posts/details/${post._id}`);
    await shows(memberSite.page.getByLabel("Your comment"));

    const adminSite = await openSite(browser, server.config.publicUrl);
    await signIn(adminSite, server.config.publicUrl, admin.token);
    await adminSite.page.goto("/admin-dashboard/users-table");
    const row = adminSite.page.getByRole("row").filter({ hasText: "troll" });
    await row.getByRole("button", { name: "Suspend" }).click();
    await shows(adminSite.page.getByText("User has been suspended"));
    await shows(row.getByRole("button", { name: "Restore" }));
    await shows(row.getByText("Suspended"));
    await expectAccessible(adminSite.page);

    // The open page's comment form no longer writes: the session is gone.
    await memberSite.page.getByLabel("Your comment").fill("You cannot stop me");
    await memberSite.page.getByRole("button", { name: "Comment", exact: true }).click();
    await memberSite.page.waitForURL("**/login");
    await memberSite.page.getByLabel("Email", { exact: true }).fill(member.email);
    await memberSite.page.getByLabel("Password", { exact: true }).fill(member.password);
    await memberSite.page.getByRole("button", { name: "Login" }).click();
    await shows(memberSite.page.getByText("This account is suspended"));
    const comments = await api.get<{ comments: unknown[] }>(`/api/posts/${post._id}`);
    expect(comments.body.comments).toEqual([]);

    await row.getByRole("button", { name: "Restore" }).click();
    await shows(adminSite.page.getByText("User has been restored"));
    await memberSite.page.getByRole("button", { name: "Login" }).click();
    await memberSite.page.waitForURL((url) => url.pathname === "/");

    // Both decisions are in the audit log, with who made them.
    await adminSite.page.getByRole("link", { name: "Audit log" }).click();
    const log = adminSite.page.getByRole("table");
    await shows(
      log.getByRole("row").filter({ hasText: "Suspended user" }).filter({ hasText: "troll" }),
    );
    await shows(
      log.getByRole("row").filter({ hasText: "Restored user" }).filter({ hasText: admin.username }),
    );
    await expectAccessible(adminSite.page);
    expectNoProblems(adminSite);
    expectNoProblems(memberSite);
    await adminSite.context.close();
    await memberSite.context.close();
  });
});

describe("reports", () => {
  it("a member reports a comment; the admin dismisses it and it stays, closed, with who decided", async () => {
    const post = await addPost(api, writer, { title: "Madeira", category: "Travel" });
    await addComment(api, writer, post._id, "Levadas are the best walks");
    const memberSite = await openSite(browser, server.config.publicUrl, {
      javaScriptEnabled: false,
    });
    await signIn(memberSite, server.config.publicUrl, reader.token);
    const { page } = memberSite;
    await page.goto(`/posts/details/${post._id}`, { waitUntil: "networkidle" });
    const comment = page.getByRole("article", { name: "Comment by writer" });
    await comment.getByText("Report", { exact: true }).click();
    await comment.getByLabel("Something else").check();
    await comment.getByLabel("Note (optional)").fill("Just testing the queue");
    // (The menu's in-place "Thank you" is checked on the post's menu below.)
    await Promise.all([
      page.waitForResponse((response) => new URL(response.url()).pathname.startsWith("/report")),
      comment.getByRole("button", { name: "Send report" }).click(),
    ]);
    expect(new URL(page.url()).pathname).toBe(`/posts/details/${post._id}`);

    const adminSite = await openSite(browser, server.config.publicUrl);
    await signIn(adminSite, server.config.publicUrl, admin.token);
    await adminSite.page.goto("/admin-dashboard");
    await adminSite.page.getByRole("link", { name: "Reports" }).click();
    const row = adminSite.page.getByRole("row").filter({ hasText: "Levadas are the best walks" });
    await shows(row.getByText("Just testing the queue"));
    await expectAccessible(adminSite.page);
    await row.getByRole("button", { name: "Dismiss" }).click();
    await shows(adminSite.page.getByText("Report dismissed"));
    await row.waitFor({ state: "detached", timeout: 5000 });
    await adminSite.page.getByRole("link", { name: "Closed reports" }).click();
    const closed = adminSite.page
      .getByRole("row")
      .filter({ hasText: "Levadas are the best walks" });
    await shows(closed.getByText(`Dismissed by ${admin.username}`));
    // The comment stays.
    await page.goto(`/posts/details/${post._id}`);
    await shows(page.getByText("Levadas are the best walks"));
    expectNoProblems(memberSite);
    expectNoProblems(adminSite);
    await memberSite.context.close();
    await adminSite.context.close();
  });

  it("a member reports a post; the admin suspends its author, who can no longer sign in; all in the log", async () => {
    const spammer = await buildUser(server, api, {
      username: `spam${Math.random().toString(36).slice(2, 7)}`,
    });
    const post = await addPost(api, spammer, { title: "Cheap flights!!!", category: "Travel" });
    const memberSite = await openSite(browser, server.config.publicUrl);
    await signIn(memberSite, server.config.publicUrl, reader.token);
    await memberSite.page.goto(`/posts/details/${post._id}`);
    const likes = memberSite.page.getByRole("region", { name: "Likes" });
    await likes.getByText("Report", { exact: true }).click();
    await likes.getByRole("button", { name: "Send report" }).click();
    await shows(likes.getByText("Thank you, your report was received"));
    // Twice is refused.
    await likes.getByRole("button", { name: "Send report" }).click();
    await shows(likes.getByText("You have already reported this"));

    const adminSite = await openSite(browser, server.config.publicUrl);
    await signIn(adminSite, server.config.publicUrl, admin.token);
    await adminSite.page.goto("/admin-dashboard/reports-table");
    const row = adminSite.page.getByRole("row").filter({ hasText: "Cheap flights!!!" });
    await row.getByRole("button", { name: "Suspend author" }).click();
    await shows(adminSite.page.getByText("Author suspended"));

    const spammerSite = await openSite(browser, server.config.publicUrl);
    await spammerSite.page.goto("/login");
    await spammerSite.page.getByLabel("Email", { exact: true }).fill(spammer.email);
    await spammerSite.page.getByLabel("Password", { exact: true }).fill(spammer.password);
    await spammerSite.page.getByRole("button", { name: "Login" }).click();
    await shows(spammerSite.page.getByText("This account is suspended"));

    await adminSite.page.getByRole("link", { name: "Audit log" }).click();
    const log = adminSite.page.getByRole("table");
    await shows(log.getByRole("row").filter({ hasText: "Suspended reported author" }));
    await shows(
      log
        .getByRole("row")
        .filter({ hasText: "Suspended user" })
        .filter({ hasText: spammer.username }),
    );
    for (const site of [memberSite, adminSite, spammerSite]) {
      expectNoProblems(site);
      await site.context.close();
    }
  });
});

describe("links in comments", () => {
  it('become links marked rel="ugc nofollow"; anything but http(s) stays text', async () => {
    const post = await addPost(api, writer, { title: "Links", category: "Travel" });
    await addComment(
      api,
      reader,
      post._id,
      "See https://example.com/guide?a=1&b=2, and javascript:alert(1) or <a href=x>x</a>.",
    );
    const response = await fetch(`${server.url}/posts/details/${post._id}`);
    const html = await response.text();
    expect(html).toContain(
      '<a href="https://example.com/guide?a=1&amp;b=2" rel="ugc nofollow noopener noreferrer">https://example.com/guide?a=1&amp;b=2</a>, and javascript:alert(1) or &lt;a href=x&gt;x&lt;/a&gt;.',
    );
    expect(html.match(/<a [^>]*rel="ugc nofollow/g)).toHaveLength(1);
  });
});
