import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, Page } from "playwright-core";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildUser, signInAdmin, type TestUser } from "../support/factories.js";
import { client, type Client } from "../support/http.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import {
  expectAccessible,
  expectNoProblems,
  launchBrowser,
  openSite,
  shows,
  signIn,
} from "./browser.js";

// Integrations on the site (issue 36): a member makes an API token on the settings page, uses it
// and revokes it; an admin adds a webhook, copies its secret, sends a test event and sees it
// delivered. A receiver on this machine (WEBHOOK_ALLOW_PRIVATE=on) checks each signature.

let server: TestServer;
let api: Client;
let browser: Browser;
let admin: TestUser;
let member: TestUser;
let receiver: Server;
const received: { body: string; headers: Record<string, string> }[] = [];

beforeAll(async () => {
  server = await startTestServer(
    { WEBHOOK_ALLOW_PRIVATE: "on" },
    { outboxCheckMs: 200, webhookTimeoutMs: 2000 },
  );
  api = client(server.url);
  admin = await signInAdmin(server, api);
  member = await buildUser(server, api);
  browser = await launchBrowser();
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) {
        if (typeof value === "string") headers[name] = value;
      }
      received.push({ body: Buffer.concat(chunks).toString("utf8"), headers });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
});
afterAll(async () => {
  await browser.close();
  await server.close();
  await new Promise((resolve) => receiver.close(resolve));
});

/** What the page's clipboard holds (its context granted "clipboard-read"). */
const clipboardOf = (page: Page) =>
  page.evaluate(() =>
    (
      globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }
    ).navigator.clipboard.readText(),
  );

/** Where a secret sits on the screen: its box, the line boxes of its text and the page's width. */
interface SecretLayout {
  scrollWidth: number;
  clientWidth: number;
  lines: number;
  pageWidth: number;
  screenWidth: number;
}

describe("API tokens on the settings page", () => {
  it("are made, shown once, used by a script, listed with their last use and revoked", async () => {
    const site = await openSite(browser, server.config.publicUrl);
    await signIn(site, server.config.publicUrl, member.token);
    const { page } = site;
    await page.goto("/settings");
    await shows(page.getByRole("heading", { name: "API tokens" }));
    await shows(page.getByText("No tokens yet."));
    await expectAccessible(page);

    // A name is required, said beside its field.
    await page.getByRole("button", { name: "Create token" }).click();
    await shows(page.getByText("Name is required").first());

    await page.getByLabel("Token name").fill("Publish from CI");
    await page.getByLabel("Write: publish, edit and comment as you").check();
    await page.getByRole("button", { name: "Create token" }).click();
    const shown = page.locator(".new-secret code");
    await shows(shown);
    const token = (await shown.textContent()) ?? "";
    expect(token).toMatch(/^blog_/);

    const made = await api.post<{ title: string }>(
      "/api/posts",
      { title: "Sent by CI", category: "Nowhere", description: "x", status: "draft" },
      { token },
    );
    // The token is its owner: refused only for what the owner may not do either (no category).
    expect(made.status).toBe(400);
    expect((await api.get("/api/users/me/settings", { token })).status).toBe(200);

    // Shown once: a reload lists it, used just now, without the token.
    await page.goto("/settings");
    const row = page.locator(".security-list li", { hasText: "Publish from CI" });
    await shows(row.getByText("last used"));
    expect(await page.content()).not.toContain(token);
    await row.getByRole("button", { name: "Revoke token Publish from CI" }).click();
    await page
      .getByRole("dialog", { name: "Are you sure?" })
      .getByRole("button", { name: "Revoke", exact: true })
      .click();
    await shows(page.getByText("No tokens yet."));
    expect((await api.get("/api/users/me/settings", { token })).status).toBe(401);
    expectNoProblems(site);
  });

  it("shows a new token on one line with a Copy button, empties the form and asks before revoking (phone)", async () => {
    const site = await openSite(browser, server.config.publicUrl, { phone: true });
    await site.page.setViewportSize({ width: 390, height: 844 });
    await site.context.grantPermissions(["clipboard-read", "clipboard-write"], {
      origin: new URL(server.config.publicUrl).origin,
    });
    await signIn(site, server.config.publicUrl, member.token);
    const { page } = site;
    await page.goto("/settings");
    await page.getByLabel("Token name").fill("Deploy from a phone");
    await page.getByLabel("Write: publish, edit and comment as you").check();
    await page.getByRole("button", { name: "Create token" }).click();
    const shown = page.locator(".new-secret code");
    await shows(shown);
    const token = (await shown.textContent()) ?? "";
    expect(token).toMatch(/^blog_/);

    // The form starts afresh: no name, and the default access again.
    await expect.poll(() => page.getByLabel("Token name").inputValue()).toBe("");
    expect(await page.getByLabel("Read: GET calls only").isChecked()).toBe(true);

    // One line that scrolls in its box; the page keeps the phone's width.
    const layout = await page.evaluate<SecretLayout>(`(() => {
      const code = document.querySelector(".new-secret code");
      const range = document.createRange();
      range.selectNodeContents(code);
      return {
        scrollWidth: code.scrollWidth,
        clientWidth: code.clientWidth,
        lines: new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size,
        pageWidth: document.documentElement.scrollWidth,
        screenWidth: window.innerWidth,
      };
    })()`);
    expect(layout.lines).toBe(1);
    expect(layout.scrollWidth).toBeGreaterThan(layout.clientWidth);
    expect(layout.pageWidth).toBeLessThanOrEqual(layout.screenWidth);

    await page.getByRole("button", { name: "Copy the token" }).click();
    await shows(page.getByRole("status").getByText("Copied", { exact: true }));
    expect(await clipboardOf(page)).toBe(token);
    await expectAccessible(page);

    // Revoke asks first: Cancel keeps the token working, the dialog's Revoke ends it.
    const row = page.locator(".security-list li", { hasText: "Deploy from a phone" });
    const revoke = row.getByRole("button", { name: "Revoke token Deploy from a phone" });
    const dialog = page.getByRole("dialog", { name: "Are you sure?" });
    await revoke.click();
    await shows(dialog.getByText("stop working at once"));
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "hidden" });
    await shows(revoke);
    expect((await api.get("/api/users/me/settings", { token })).status).toBe(200);

    await revoke.click();
    await dialog.getByRole("button", { name: "Revoke", exact: true }).click();
    await shows(page.getByText("No tokens yet."));
    expect((await api.get("/api/users/me/settings", { token })).status).toBe(401);
    expectNoProblems(site);
    await site.context.close();
  });
});

describe("webhooks in the dashboard", () => {
  it("are added with their events, send a signed test event and show its delivery", async () => {
    const site = await openSite(browser, server.config.publicUrl);
    await site.context.grantPermissions(["clipboard-read", "clipboard-write"], {
      origin: new URL(server.config.publicUrl).origin,
    });
    await signIn(site, server.config.publicUrl, admin.token);
    const { page } = site;
    await page.goto("/admin-dashboard");
    await page
      .getByRole("navigation", { name: "Dashboard" })
      .getByRole("link", { name: "Webhooks" })
      .click();
    await page.waitForURL("**/admin-dashboard/webhooks");
    await shows(page.getByText("No webhooks yet."));
    await expectAccessible(page);

    const url = `http://127.0.0.1:${String((receiver.address() as AddressInfo).port)}/hooks`;
    await page.getByLabel("URL").fill("ftp://example.com/");
    await page.getByRole("button", { name: "Add webhook" }).click();
    await shows(page.getByText("URL must be an http:// or https:// address").first());

    await page.getByLabel("URL").fill(url);
    await page.getByLabel("user.created").uncheck();
    await page.getByRole("button", { name: "Add webhook" }).click();
    const shown = page.locator(".new-secret code");
    await shows(shown);
    const secret = (await shown.textContent()) ?? "";
    expect(secret).toMatch(/^whsec_/);
    await page.getByRole("button", { name: "Copy the signing secret" }).click();
    await shows(page.getByRole("status").getByText("Copied", { exact: true }));
    expect(await clipboardOf(page)).toBe(secret);
    // The form starts afresh for the next webhook.
    await expect.poll(() => page.getByLabel("URL").inputValue()).toBe("");
    const card = page.getByRole("region", { name: `Webhook ${url}` });
    await shows(card.getByText("post.published, post.updated, post.deleted, comment.created"));

    await card.getByRole("button", { name: `Send a test event to ${url}` }).click();
    await shows(page.getByText("Test event queued").first());
    await expect.poll(() => received.length, { timeout: 10_000 }).toBe(1);
    const [delivery] = received;
    const event = new Webhook(secret).verify(delivery?.body ?? "", delivery?.headers ?? {});
    expect(event).toMatchObject({ type: "webhook.test" });

    await page.goto("/admin-dashboard/webhooks");
    const row = card.locator("tbody tr").first();
    await shows(row.getByText("Delivered"));
    await shows(row.getByText("204"));
    expect(await page.content()).not.toContain(secret);
    await expectAccessible(page);

    await card.getByRole("button", { name: `Remove webhook ${url}` }).click();
    await page
      .getByRole("dialog", { name: "Are you sure?" })
      .getByRole("button", { name: "OK" })
      .click();
    await shows(page.getByText("No webhooks yet."));
    expectNoProblems(site);
  });
});
