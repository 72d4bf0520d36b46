import { beforeAll, describe, expect, it } from "vitest";
import { seedDemo } from "../../bench/seed.js";
import { buildUser, type TestUser } from "../support/factories.js";
import { client } from "../support/http.js";
import { expectAccessible, expectNoProblems, shows, openBrowserSite } from "./browser.js";

const { server, open } = await openBrowserSite({});

let member: TestUser;

beforeAll(async () => {
  await seedDemo(server.app.deps.db, server.app.deps.storage, {
    users: 2,
    categories: 2,
    posts: 8,
    likes: 0,
    comments: 0,
  });
  member = await buildUser(server, client(server.url));
});

describe("the side menu on a phone", () => {
  it("opens from the menu button and by a swipe, and closes on Escape, the backdrop and a link", async () => {
    const site = await open({ phone: true, signedIn: member.token });
    const { page } = site;
    await page.goto("/");
    expect(await page.getByRole("navigation", { name: "Main" }).isVisible()).toBe(false);
    const menu = page.getByRole("navigation", { name: "Side menu" });
    expect(await menu.count()).toBe(0);

    await page.getByRole("button", { name: "Open menu" }).click();
    await shows(menu);
    // Measured once the 300 ms slide-in has finished.
    await expect.poll(async () => (await menu.boundingBox())?.width).toBeCloseTo(240, 1);
    for (const entry of ["Home", "Posts", "Profile"])
      await shows(menu.getByRole("link", { name: entry }));
    await shows(menu.getByRole("button", { name: "Log Out" }));
    expect(await menu.getByRole("link", { name: "Dashboard" }).count()).toBe(0);
    await expectAccessible(page);
    await page.keyboard.press("Escape");
    expect(await menu.count()).toBe(0);

    const touch = await site.context.newCDPSession(page);
    await touch.send("Input.dispatchTouchEvent", {
      type: "touchStart",
      touchPoints: [{ x: 5, y: 400 }],
    });
    await touch.send("Input.dispatchTouchEvent", {
      type: "touchMove",
      touchPoints: [{ x: 12, y: 400 }],
    });
    expect(await menu.count()).toBe(0);
    await touch.send("Input.dispatchTouchEvent", {
      type: "touchMove",
      touchPoints: [{ x: 40, y: 400 }],
    });
    await touch.send("Input.dispatchTouchEvent", { type: "touchEnd", touchPoints: [] });
    await shows(menu);
    await page.mouse.click(350, 400);
    expect(await menu.count()).toBe(0);

    await page.getByRole("button", { name: "Open menu" }).click();
    await menu.getByRole("link", { name: "Posts" }).click();
    await page.waitForURL("**/posts");
    expect(await menu.count()).toBe(0);
    expectNoProblems(site);
    await site.context.close();
  });

  it("offers a scroll-to-top button once the page has scrolled past 150 px", async () => {
    const site = await open({ phone: true });
    const { page } = site;
    await page.goto("/posts");
    const button = page.getByRole("button", { name: "Scroll to top" });
    expect(await button.count()).toBe(0);
    await page.mouse.wheel(0, 100);
    await page.waitForTimeout(200);
    expect(await button.count()).toBe(0);
    await page.mouse.wheel(0, 600);
    await shows(button);
    await button.click();
    await expect
      .poll(() => page.evaluate(() => (globalThis as unknown as { scrollY: number }).scrollY))
      .toBe(0);
    await site.context.close();
  });
});

describe("form messages", () => {
  it("checks the login form before sending it", async () => {
    const site = await open();
    const { page } = site;
    await page.goto("/login");
    await page.getByRole("button", { name: "Login" }).click();
    await shows(page.getByText("Email is required"));
    await shows(page.getByText("Password is required"));
    await page.getByLabel("Email").fill("nobody");
    await page.getByRole("button", { name: "Login" }).click();
    await shows(page.getByText("Please enter a valid email address"));
    await site.context.close();
  });

  it("refuses an image over 7,000,000 bytes on the create-post form", async () => {
    const site = await open({ signedIn: member.token });
    const { page } = site;
    await page.goto("/posts/create-post");
    await page
      .getByLabel("Post Image")
      .setInputFiles({ name: "big.png", mimeType: "image/png", buffer: Buffer.alloc(7_000_001) });
    await page.getByRole("button", { name: "Publish" }).click();
    await shows(page.getByText("File size is too large", { exact: true }));
    await site.context.close();
  });
});
