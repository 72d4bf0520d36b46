import { describe, expect, it } from "vitest";
import { unsubscribeToken } from "../../core/conversation-mail/unsubscribe.js";
import { expectAccessible, expectNoProblems, shows, openBrowserSite } from "./browser.js";

// The conversation-mail switch (settings, from the account menu) and the mailed unsubscribe page,
// whose opening changes nothing and whose button works without a session or JavaScript.
const {
  server,
  api,
  open,
  users: { member },
} = await openBrowserSite({ users: { member: { username: "correspondent" } } });

const mailSetting = async () =>
  (
    await api.get<{ emailNotifications: boolean }>("/api/users/me/settings", {
      token: member.token,
    })
  ).body.emailNotifications;

describe("conversation e-mail", () => {
  it("is switched off in the settings, and by the unsubscribe page's button", async () => {
    const site = await open({ signedIn: member.token });
    const { page } = site;
    page.setDefaultTimeout(10_000);
    await page.goto("/");
    await page.getByText("correspondent", { exact: true }).click();
    await page.getByRole("link", { name: "Settings" }).click();
    await shows(page.getByRole("heading", { name: "Settings" }));
    await expectAccessible(page);
    const box = page.getByRole("checkbox", { name: /Email me about new comments/ });
    expect(await box.isChecked()).toBe(true);
    await box.uncheck();
    await page.getByRole("button", { name: "Save settings" }).click();
    await shows(page.getByRole("status").filter({ hasText: "Settings saved" }));
    expect(await mailSetting()).toBe(false);
    await page.reload();
    expect(
      await page.getByRole("checkbox", { name: /Email me about new comments/ }).isChecked(),
    ).toBe(false);
    await page.getByRole("checkbox", { name: /Email me about new comments/ }).check();
    await page.getByRole("button", { name: "Save settings" }).click();
    await shows(page.getByRole("status").filter({ hasText: "Settings saved" }));
    expect(await mailSetting()).toBe(true);
    expectNoProblems(site);
    await site.context.close();

    // The mailed link, opened by someone not signed in: the page, which changes nothing...
    const link = `/unsubscribe/${member.id}/${await unsubscribeToken(server.app.deps.db, member.id)}`;
    const visitor = await open();
    visitor.page.setDefaultTimeout(10_000);
    const bad = await visitor.page.goto(link.replace(/.$/, (c) => (c === "A" ? "B" : "A")));
    expect(bad?.status()).toBe(404);
    await shows(visitor.page.getByRole("heading", { name: "This unsubscribe link is not valid" }));
    await visitor.page.goto(link);
    const question = { name: "Unsubscribe from conversation emails?" };
    await shows(visitor.page.getByRole("heading", question));
    await expectAccessible(visitor.page);
    expect(await mailSetting(), "opening the link changed the setting").toBe(true);
    expectNoProblems(visitor);
    await visitor.context.close();

    // ...and its button, which works without JavaScript.
    const reader = await open({ javaScriptEnabled: false });
    reader.page.setDefaultTimeout(10_000);
    await reader.page.goto(link);
    await shows(reader.page.getByRole("heading", question));
    await reader.page.getByRole("button", { name: "Unsubscribe" }).click();
    await shows(reader.page.getByRole("heading", { name: "You are unsubscribed" }));
    expect(await mailSetting()).toBe(false);
    expectNoProblems(reader);
    await reader.context.close();
  }, 60_000);
});
