import { describe, expect, it } from "vitest";
import { buildUser, type TestUser } from "../support/factories.js";
import { postForm } from "../support/form-post.js";
import { addComment, addPost } from "../support/post-fixtures.js";
import {
  expectAccessible,
  expectNoProblems,
  openBrowserSite,
  rowActions,
  shows,
} from "./browser.js";
import { withinScreen } from "./measure.js";

/** Conversations and moderation (DESIGN.md 9), as members and an admin go through them. */
const {
  server,
  api,
  admin,
  open,
  users: { writer, reader },
} = await openBrowserSite({
  users: { writer: { username: "writer" }, reader: { username: "reader" } },
  categories: ["Travel"],
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
      const site = await open({ javaScriptEnabled, signedIn: reader.token });
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
    const site = await open();
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
    const memberSite = await open({ signedIn: member.token });
    await memberSite.page.goto(`/posts/details/${post._id}`);
    await shows(memberSite.page.getByLabel("Your comment"));

    // On a phone (issue 33): the users table is a list of cards there, nothing cut or broken.
    const adminSite = await open({ phone: true, signedIn: admin.token });
    await adminSite.page.goto("/admin-dashboard/users-table");
    const row = adminSite.page.getByRole("row").filter({ hasText: "troll" });
    await shows(row);
    // Each name, address and control inside the screen, on one line (not a letter a line); the
    // row's controls wait in its "Actions" menu (issue 50).
    await rowActions(row);
    const measured = await withinScreen(
      row.locator("td :is(a, button, summary):visible, td .table-user, td:nth-child(3)"),
      60,
    );
    expect(measured.filter((verdict) => verdict !== "ok")).toEqual([]);
    expect(measured.length).toBeGreaterThanOrEqual(5);
    // Suspending asks first, for the reason the member is told and when it ends.
    await row.getByText("Suspend", { exact: true }).click();
    await row.getByLabel("Reason (shown to troll)").fill("Insults under three posts");
    await row.getByLabel("Ends on (optional; UTC)").fill("2099-01-31");
    await expectAccessible(adminSite.page);
    await row.getByRole("button", { name: "Suspend troll" }).click();
    await shows(adminSite.page.getByText("User has been suspended"));
    await rowActions(row);
    await shows(row.getByRole("button", { name: "Restore" }));
    await shows(row.getByText("Suspended", { exact: true }));
    await expectAccessible(adminSite.page);

    // The open page's comment form no longer writes: the session is gone.
    await memberSite.page.getByLabel("Your comment").fill("You cannot stop me");
    await memberSite.page.getByRole("button", { name: "Comment", exact: true }).click();
    await memberSite.page.waitForURL("**/login");
    await memberSite.page.getByLabel("Email", { exact: true }).fill(member.email);
    await memberSite.page.getByLabel("Password", { exact: true }).fill(member.password);
    await memberSite.page.getByRole("button", { name: "Login" }).click();
    await shows(memberSite.page.getByText("This account is suspended"));
    // Why, until when, and whom to write to.
    await shows(memberSite.page.getByText("Insults under three posts"));
    await shows(memberSite.page.getByText("Sat Jan 31 2099, 00:00 UTC"));
    await shows(memberSite.page.getByRole("link", { name: "hello@example.com" }));
    await expectAccessible(memberSite.page);
    const comments = await api.get<{ comments: unknown[] }>(`/api/posts/${post._id}`);
    expect(comments.body.comments).toEqual([]);

    await row.getByRole("button", { name: "Restore" }).click();
    await shows(adminSite.page.getByText("User has been restored"));
    await memberSite.page.getByRole("button", { name: "Login" }).click();
    await memberSite.page.waitForURL((url) => url.pathname === "/");

    // Both decisions are in the audit log, with who made them.
    await adminSite.page.getByRole("link", { name: "Audit log" }).click();
    const log = adminSite.page.getByRole("table");
    const suspended = log.getByRole("row").filter({ hasText: "Suspended user" }).filter({
      hasText: "troll",
    });
    await shows(suspended);
    // With the time of day.
    expect(await suspended.locator("time").textContent()).toMatch(/, \d\d:\d\d UTC$/);
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
  it("a member reports two comments and a user in place; the admin dismisses one report and removes the other comment", async () => {
    const post = await addPost(api, writer, { title: "Madeira", category: "Travel" });
    await addComment(api, writer, post._id, "Levadas are the best walks");
    await addComment(api, writer, post._id, "Buy cheap levada tours here");
    const memberSite = await open({ signedIn: reader.token });
    const { page } = memberSite;
    // With JavaScript on, a report is answered in place: no page is posted or loaded for it.
    const documents: string[] = [];
    page.on("request", (request) => {
      if (request.resourceType() === "document") documents.push(request.url());
    });
    await page.goto(`/posts/details/${post._id}`);
    const comment = (text: string) =>
      page.getByRole("article", { name: "Comment by writer" }).filter({ hasText: text });
    const fine = comment("Levadas are the best walks");
    // Hydrated: the menu asks for its answer in place (a form sent before that goes the no-script
    // way, back to the page with the message as a toast; decision 013).
    await fine.locator('input[name="inPlace"]').waitFor({ state: "attached", timeout: 5000 });
    await fine.getByText("Report", { exact: true }).click();
    await fine.getByLabel("Something else").check();
    await fine.getByLabel("Note (optional)").fill("Just testing the queue");
    await fine.getByRole("button", { name: "Send report" }).click();
    await shows(fine.getByText("Thank you, your report was received"));
    const spam = comment("Buy cheap levada tours here");
    await spam.getByText("Report", { exact: true }).click();
    // Nothing is chosen for the reporter: sending without a reason sends nothing.
    expect(await spam.getByRole("radio", { checked: true }).count()).toBe(0);
    await spam.getByRole("button", { name: "Send report" }).click();
    expect(await spam.locator('input[name="reason"]:invalid').count()).toBe(3);
    await spam.getByLabel("Spam").check();
    await spam.getByRole("button", { name: "Send report" }).click();
    await shows(spam.getByText("Thank you, your report was received"));
    // Sent: the thanks stay, the form goes.
    await shows(spam.getByText("Reported", { exact: true }));
    expect(await spam.getByRole("button", { name: "Send report" }).count()).toBe(0);
    expect(documents).toHaveLength(1);

    // A user, from the Report menu of their profile.
    await page.getByRole("link", { name: "writer" }).first().click();
    await page.waitForURL(`**/profile/${writer.id}`);
    // The user's menu, before and after (its form, legend and all, goes once the report is sent).
    const profile = page
      .locator(".report-menu")
      .filter({ hasText: /Why are you reporting this user\?|Thank you, your report was received/ });
    await profile.getByText("Report", { exact: true }).click();
    await profile.getByLabel("Harassment").check();
    await profile.getByRole("button", { name: "Send report" }).click();
    await shows(profile.getByText("Thank you, your report was received"));
    await expectAccessible(page);

    const adminSite = await open({ signedIn: admin.token });
    await adminSite.page.goto("/admin-dashboard");
    await adminSite.page.getByRole("link", { name: "Reports" }).click();
    const row = (text: string) => adminSite.page.getByRole("row").filter({ hasText: text });
    await shows(row("Levadas are the best walks").getByText("Just testing the queue"));
    await shows(row(writer.username).getByText("harassment", { exact: false }));
    await expectAccessible(adminSite.page);
    await row("Levadas are the best walks").getByRole("button", { name: "Dismiss" }).click();
    await shows(adminSite.page.getByText("Report dismissed"));
    await row("Levadas are the best walks").waitFor({ state: "detached", timeout: 5000 });
    await row("Buy cheap levada tours here").getByRole("button", { name: "Remove" }).click();
    await shows(adminSite.page.getByText("Reported content removed"));
    await row("Buy cheap levada tours here").waitFor({ state: "detached", timeout: 5000 });
    await adminSite.page.getByRole("link", { name: "Closed reports" }).click();
    await shows(row("Levadas are the best walks").getByText(`Dismissed by ${admin.username}`));
    await shows(row("Buy cheap levada tours here").getByText(`Removed by ${admin.username}`));
    // The dismissed comment stays; the removed one is gone.
    await page.goto(`/posts/details/${post._id}`);
    await shows(page.getByText("Levadas are the best walks"));
    expect(await page.getByText("Buy cheap levada tours here").count()).toBe(0);
    expectNoProblems(memberSite);
    expectNoProblems(adminSite);
    await memberSite.context.close();
    await adminSite.context.close();
  });

  it("a report sent without JavaScript comes back to the page, and never to another site", async () => {
    const post = await addPost(api, writer, { title: "Azores", category: "Travel" });
    const member = await buildUser(server, api);
    const site = await open({ javaScriptEnabled: false, signedIn: member.token });
    await site.page.goto(`/posts/details/${post._id}`);
    const likes = site.page.getByRole("region", { name: "Likes" });
    await likes.getByText("Report", { exact: true }).click();
    await likes.getByLabel("Spam").check();
    await likes.getByRole("button", { name: "Send report" }).click();
    await site.page.waitForURL(`**/posts/details/${post._id}`);
    // The message comes back with the page, shown where scripts do not run (Playwright's text
    // locators skip <noscript>, so its text is read).
    await expect
      .poll(() => site.page.locator("main noscript").allTextContents(), { timeout: 5000 })
      .toContain("Thank you, your report was received");
    expectNoProblems(site);
    await site.context.close();

    const send = (returnTo: string) =>
      postForm(
        server,
        "/report",
        new URLSearchParams({ postId: post._id, reason: "spam", returnTo }).toString(),
        { cookie: `session=${reader.token}` },
      );
    const back = await send(`/posts/details/${post._id}`);
    expect(back.status).toBe(302);
    expect(back.headers.get("location")).toBe(`/posts/details/${post._id}`);
    for (const hostile of [
      "/\\evil.example",
      "//evil.example",
      "https://evil.example/",
      "/\t/evil.example",
    ]) {
      const answer = await send(hostile);
      expect(answer.status, hostile).toBe(302);
      expect(answer.headers.get("location"), hostile).toBe("/");
    }
  });

  it("a member reports a post; the admin suspends its author, who can no longer sign in; all in the log", async () => {
    const spammer = await buildUser(server, api, {
      username: `spam${Math.random().toString(36).slice(2, 7)}`,
    });
    const post = await addPost(api, spammer, { title: "Cheap flights!!!", category: "Travel" });
    const memberSite = await open({ signedIn: reader.token });
    await memberSite.page.goto(`/posts/details/${post._id}`);
    const likes = memberSite.page.getByRole("region", { name: "Likes" });
    await likes.getByText("Report", { exact: true }).click();
    await likes.getByLabel("Harassment").check();
    await likes.getByRole("button", { name: "Send report" }).click();
    await shows(likes.getByText("Thank you, your report was received"));
    // Nothing to press twice.
    expect(await likes.getByRole("button", { name: "Send report" }).count()).toBe(0);

    const adminSite = await open({ signedIn: admin.token });
    await adminSite.page.goto("/admin-dashboard/reports-table");
    const row = adminSite.page.getByRole("row").filter({ hasText: "Cheap flights!!!" });
    // "By" names who reported it; the author has a column of their own.
    await shows(row.locator('td[data-label="By"]').getByText(reader.username, { exact: true }));
    await shows(row.locator('td[data-label="Author"]').getByText(spammer.username));
    await row.getByText("Suspend author", { exact: true }).click();
    await row.getByLabel(`Reason (shown to ${spammer.username})`).fill("Advertising");
    await row.getByRole("button", { name: `Suspend ${spammer.username}` }).click();
    await shows(adminSite.page.getByText("Author suspended"));

    const spammerSite = await open();
    await spammerSite.page.goto("/login");
    await spammerSite.page.getByLabel("Email", { exact: true }).fill(spammer.email);
    await spammerSite.page.getByLabel("Password", { exact: true }).fill(spammer.password);
    await spammerSite.page.getByRole("button", { name: "Login" }).click();
    await shows(spammerSite.page.getByText("This account is suspended"));

    await adminSite.page.getByRole("link", { name: "Audit log" }).click();
    const log = adminSite.page.getByRole("table");
    await shows(log.getByRole("row").filter({ hasText: "Suspended reported author" }));
    // One decision, one entry (not a second "Suspended user" for the same act).
    expect(
      await log
        .getByRole("row")
        .filter({ hasText: "Suspended user" })
        .filter({ hasText: spammer.username })
        .count(),
    ).toBe(0);
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
