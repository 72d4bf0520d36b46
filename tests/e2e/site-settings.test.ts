import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signInAdmin, type TestUser } from "../support/factories.js";
import { client } from "../support/http.js";
import { pngImage } from "../support/images.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import {
  expectAccessible,
  expectNoProblems,
  launchBrowser,
  openSite,
  shows,
  signIn,
} from "./browser.js";

/** Site settings in the dashboard (issue 21.5): what an admin saves, every visitor sees at once. */
let server: TestServer;
let browser: Browser;
let admin: TestUser;

beforeAll(async () => {
  server = await startTestServer({ SITE_TITLE: "Before Title" });
  admin = await signInAdmin(server, client(server.url));
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser.close();
  await server.close();
});

describe("site settings", () => {
  it("an admin changes the title and logo; a visitor sees them on the next page", async () => {
    const visitor = await openSite(browser, server.config.publicUrl);
    await visitor.page.goto("/");
    await shows(visitor.page.locator("header .brand").getByText("Before Title"));

    const site = await openSite(browser, server.config.publicUrl);
    await signIn(site, server.config.publicUrl, admin.token);
    const { page } = site;
    await page.goto("/admin-dashboard");
    await page
      .getByRole("navigation", { name: "Dashboard" })
      .getByRole("link", { name: "Site settings" })
      .click();
    await page.waitForURL("**/admin-dashboard/site-settings");
    expect(await page.getByLabel("Site title").inputValue()).toBe("Before Title");
    await expectAccessible(page);

    // Checked in the browser before anything is sent.
    await page.getByLabel("Contact e-mail").fill("not-an-address");
    await page.getByRole("button", { name: "Save" }).click();
    await shows(page.getByText("Contact e-mail must be an e-mail address"));

    await page.getByLabel("Contact e-mail").fill("desk@example.com");
    await page.getByLabel("Site title").fill("After Title");
    await page.getByLabel("Logo").setInputFiles({
      name: "logo.png",
      mimeType: "image/png",
      buffer: await pngImage(240, 80),
    });
    await page.getByRole("button", { name: "Save" }).click();
    await shows(page.getByText("Site settings saved"));
    await shows(page.locator("header .brand").getByText("After Title"));
    await shows(page.getByAltText("The current logo"));
    expectNoProblems(site);

    await visitor.page.goto("/");
    await shows(visitor.page.locator("header .brand").getByText("After Title"));
    expect(await visitor.page.title()).toBe("After Title");
    const logo = visitor.page.locator("header .brand img.brand-logo");
    await shows(logo);
    expect(
      await logo.evaluate((image) => (image as unknown as { naturalWidth: number }).naturalWidth),
    ).toBeGreaterThan(0);
    await shows(visitor.page.locator(`a[href="mailto:desk@example.com"]`));
    await expectAccessible(visitor.page);
    expectNoProblems(visitor);
    await site.context.close();
    await visitor.context.close();
  });

  it("saves without JavaScript, keeping what was typed when a rule refuses it", async () => {
    const site = await openSite(browser, server.config.publicUrl, { javaScriptEnabled: false });
    await signIn(site, server.config.publicUrl, admin.token);
    const { page } = site;
    await page.goto("/admin-dashboard/site-settings");
    await page.getByLabel("Site title").fill("Typed Title");
    await page.getByLabel("Contact phone").fill("call me");
    await page.getByRole("button", { name: "Save" }).click();
    await shows(page.getByText("Contact phone must be a phone number like +1 555 0100"));
    expect(await page.getByLabel("Site title").inputValue()).toBe("Typed Title");

    await page.getByLabel("Contact phone").fill("+1 555 0199");
    await page.getByLabel("Remove the logo").check();
    await page.getByRole("button", { name: "Save" }).click();
    await page.waitForURL("**/admin-dashboard/site-settings");
    await shows(page.locator("header .brand").getByText("Typed Title"));
    expect(await page.locator("header .brand img").count()).toBe(0);
    await shows(page.locator(`a[href="tel:+15550199"]`));
    expectNoProblems(site);
    await site.context.close();
  });

  it("an admin sets and orders the header's links on a phone, without JavaScript too; a visitor's menu shows them", async () => {
    const site = await openSite(browser, server.config.publicUrl, { phone: true });
    await signIn(site, server.config.publicUrl, admin.token);
    const { page } = site;
    await page.goto("/admin-dashboard/site-settings");
    const header = page.getByRole("group", { name: "Header links" });
    const footer = page.getByRole("group", { name: "Footer links" });
    // Until an admin saves navigation, the footer's links of before.
    expect(await footer.getByLabel("Label 1").inputValue()).toBe("Home");
    expect(await footer.getByLabel("Address 3").inputValue()).toBe("/rss.xml");

    // A rule refused: said under the row, what was typed kept.
    await header.getByLabel("Label 1").fill("Go posts");
    await header.getByLabel("Address 1").fill("javascript:alert(1)");
    await page.getByRole("button", { name: "Save" }).click();
    await shows(
      header.getByText(
        "Address must be a path on this site (starting with /) or an http:// or https:// address",
      ),
    );
    expect(await header.getByLabel("Label 1").inputValue()).toBe("Go posts");
    await header.getByLabel("Address 1").fill("/tag/go");
    await page.getByRole("button", { name: "Save" }).click();
    await shows(page.getByRole("status").getByText("Site settings saved"));
    // Saved, a new blank row waits for the next link.
    await header.getByLabel("Label 2").fill("Rust posts");
    await header.getByLabel("Address 2").fill("/tag/rust");
    await page.getByRole("button", { name: "Save" }).click();
    await shows(header.getByRole("button", { name: "Move up “Rust posts”" }));
    await expectAccessible(page);
    // Enter in a field is Save, not the first row's Down.
    await page.getByLabel("Site title").press("Enter");
    await shows(page.getByRole("status").getByText("Site settings saved"));
    expect(await header.getByLabel("Label 1").inputValue()).toBe("Go posts");

    // Ordered from the keyboard (no drag): the second link moves up.
    await header.getByRole("button", { name: "Move up “Rust posts”" }).focus();
    await page.keyboard.press("Enter");
    await shows(header.getByRole("button", { name: "Move down “Rust posts”" }));
    expect(await header.getByLabel("Label 1").inputValue()).toBe("Rust posts");

    // Without JavaScript, the same buttons: "Go posts" is removed.
    const plain = await openSite(browser, server.config.publicUrl, {
      phone: true,
      javaScriptEnabled: false,
    });
    await signIn(plain, server.config.publicUrl, admin.token);
    await plain.page.goto("/admin-dashboard/site-settings");
    await plain.page
      .getByRole("group", { name: "Header links" })
      .getByRole("button", { name: "Remove “Go posts”" })
      .click();
    await plain.page.waitForURL("**/admin-dashboard/site-settings");
    expect(
      await plain.page
        .getByRole("group", { name: "Header links" })
        .getByLabel("Label 2")
        .inputValue(),
    ).toBe("");

    // A visitor on a phone finds the link in the menu, after Posts.
    const visitor = await openSite(browser, server.config.publicUrl, { phone: true });
    await visitor.page.goto("/");
    await visitor.page.getByRole("button", { name: "Open menu" }).click();
    const menu = visitor.page.getByRole("navigation", { name: "Side menu" });
    const items = await menu.getByRole("listitem").allInnerTexts();
    expect(items.indexOf("Rust posts")).toBe(items.indexOf("Posts") + 1);
    expect(items).not.toContain("Go posts");
    await menu.getByRole("link", { name: "Rust posts" }).click();
    await visitor.page.waitForURL("**/tag/rust");
    for (const watched of [site, plain, visitor]) {
      expectNoProblems(watched);
      await watched.context.close();
    }
  });

  it("an admin writes an About page on a phone and puts it in the header; a visitor opens it", async () => {
    const site = await openSite(browser, server.config.publicUrl, { phone: true });
    await signIn(site, server.config.publicUrl, admin.token);
    const { page } = site;
    await page.goto("/admin-dashboard");
    await page
      .getByRole("navigation", { name: "Dashboard" })
      .getByRole("link", { name: "Pages" })
      .click();
    await page.waitForURL("**/admin-dashboard/pages");
    await shows(page.getByText("No pages yet"));
    await page.getByRole("link", { name: "New page" }).click();
    await page.waitForURL("**/admin-dashboard/pages/new");

    // Checked in the browser first: a page needs its text.
    await page.getByLabel("Title").fill("About us");
    await page.getByRole("button", { name: "Create page" }).click();
    await shows(page.getByText("Page text is required"));
    // The address follows the title until typed.
    expect(await page.getByLabel(/^Address/).inputValue()).toBe("about-us");
    await page
      .getByRole("textbox", { name: "Text (Markdown)" })
      .fill("## Who we are\n\nWe write about **Go**.");
    await page.getByRole("button", { name: "Create page" }).click();
    await shows(page.getByText("Page created"));
    await expectAccessible(page);

    // Renamed: the old address keeps working.
    await page.getByLabel(/^Address/).fill("about");
    await page.getByRole("button", { name: "Save page" }).click();
    await shows(page.getByText("Page saved"));

    await page.goto("/admin-dashboard/site-settings");
    const header = page.getByRole("group", { name: "Header links" });
    const labels = header.getByLabel(/^Label \d+$/);
    const blank = await labels.count();
    await header.getByLabel(`Label ${String(blank)}`).fill("About");
    await header.getByLabel(`Address ${String(blank)}`).fill("/pages/about");
    await page.getByRole("button", { name: "Save" }).click();
    await shows(page.getByRole("status").getByText("Site settings saved"));

    const visitor = await openSite(browser, server.config.publicUrl, { phone: true });
    await visitor.page.goto("/");
    await visitor.page.getByRole("button", { name: "Open menu" }).click();
    await visitor.page
      .getByRole("navigation", { name: "Side menu" })
      .getByRole("link", { name: "About" })
      .click();
    await visitor.page.waitForURL("**/pages/about");
    await shows(visitor.page.getByRole("heading", { level: 1, name: "About us" }));
    await shows(visitor.page.getByRole("heading", { level: 2, name: "Who we are" }));
    expect(await visitor.page.title()).toContain("About us");
    await expectAccessible(visitor.page);
    await visitor.page.goto("/pages/about-us");
    await visitor.page.waitForURL("**/pages/about");
    for (const watched of [site, visitor]) {
      expectNoProblems(watched);
      await watched.context.close();
    }
  });

  it("a draft page saves itself as the admin writes, and the button's save then goes through", async () => {
    const made = await client(server.url).post<{ _id: string }>(
      "/api/pages",
      { title: "Colophon", slug: "colophon", description: "Set in type.", status: "draft" },
      { token: admin.token },
    );
    expect(made.status, made.text).toBe(201);
    const site = await openSite(browser, server.config.publicUrl, { phone: true });
    await signIn(site, server.config.publicUrl, admin.token);
    const { page } = site;
    await page.goto(`/admin-dashboard/pages/${made.body._id}`);
    await shows(page.getByText("Changes to this draft save themselves as you write."));
    await shows(page.getByRole("tab", { name: "Write" }));
    const text = page.getByRole("textbox", { name: "Text (Markdown)" });
    await text.press("End");
    await text.pressSequentially(" Kept.");
    await shows(page.getByRole("status").getByText(/^Saved/));
    // The version the save by itself made is the one the button sends: no "changed elsewhere".
    await page.getByLabel("Title").fill("How this site is made");
    await page.getByRole("button", { name: "Save page" }).click();
    await shows(page.getByText("Page saved"));
    const saved = await client(server.url).get<{ title: string; description: string }>(
      "/api/pages/colophon",
      { token: admin.token },
    );
    expect(saved.body).toMatchObject({
      title: "How this site is made",
      description: "Set in type. Kept.",
    });
    expectNoProblems(site);
    await site.context.close();
  });
});
