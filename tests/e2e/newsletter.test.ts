import { describe, expect, it } from "vitest";
import { subscriptionLinks } from "../../core/newsletter/subscriptions.js";
import { lastMailTo } from "../support/mail.js";
import { expectAccessible, expectNoProblems, shows, openBrowserSite } from "./browser.js";

// A newsletter's mailed links in a phone's browser (decision 028): the confirmation page and the
// unsubscribe page change nothing when opened; their buttons do, without a session, with or
// without JavaScript.
const { server, api, open } = await openBrowserSite({});

const statusOf = async (email: string) =>
  (
    await server.app.deps.db
      .selectFrom("subscriptions")
      .select("status")
      .where("email", "=", email)
      .executeTakeFirstOrThrow()
  ).status;

describe("a newsletter's mailed links", () => {
  it("confirm a subscription, then end it, from a phone", async () => {
    const email = "phone-reader@example.com";
    expect((await api.post("/api/newsletter/subscribe", { email })).status).toBe(202);
    const mail = await lastMailTo(server.config.dataDir, email);
    const confirm = mail.links.find((link) => link.includes("/newsletter/confirm/"));
    if (!confirm) throw new Error("no confirmation link");

    const site = await open({ phone: true });
    const { page } = site;
    await page.goto(new URL(confirm).pathname);
    await shows(page.getByRole("heading", { name: "Confirm your subscription?" }));
    expect(await statusOf(email)).toBe("pending");
    await expectAccessible(page);
    await page.getByRole("button", { name: "Confirm subscription" }).click();
    await shows(page.getByRole("heading", { name: "You are subscribed" }));
    expect(await statusOf(email)).toBe("active");

    // The unsubscribe link of its subscription, as a post's mail carries it.
    const row = await server.app.deps.db
      .selectFrom("subscriptions")
      .select("id")
      .where("email", "=", email)
      .executeTakeFirstOrThrow();
    const links = await subscriptionLinks(server.app.deps, row.id);
    await page.goto(new URL(links.unsubscribePage).pathname);
    await shows(page.getByRole("heading", { name: "Stop getting new posts by e-mail?" }));
    expect(await statusOf(email)).toBe("active");
    await page.getByRole("button", { name: "Unsubscribe" }).click();
    await shows(page.getByRole("heading", { name: "You are unsubscribed" }));
    expect(await statusOf(email)).toBe("unsubscribed");
    expectNoProblems(site);
    await site.context.close();

    // A link that is not one says so.
    const stray = await open({ javaScriptEnabled: false });
    const answer = await stray.page.goto(`${new URL(links.unsubscribePage).pathname}x`);
    expect(answer?.status()).toBe(404);
    await shows(stray.page.getByRole("heading", { name: "This unsubscribe link is not valid" }));
    await stray.context.close();
  });

  it("work without JavaScript", async () => {
    const email = "plain-reader@example.com";
    await api.post("/api/newsletter/subscribe", { email });
    const mail = await lastMailTo(server.config.dataDir, email);
    const confirm = mail.links.find((link) => link.includes("/newsletter/confirm/"));
    if (!confirm) throw new Error("no confirmation link");
    const site = await open({ javaScriptEnabled: false });
    await site.page.goto(new URL(confirm).pathname);
    await site.page.getByRole("button", { name: "Confirm subscription" }).click();
    await shows(site.page.getByRole("heading", { name: "You are subscribed" }));
    expect(await statusOf(email)).toBe("active");
    await site.context.close();
  });
});
