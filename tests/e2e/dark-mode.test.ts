import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { type TestUser } from "../support/factories.js";
import { addComment, addPost } from "../support/post-fixtures.js";
import {
  expectAccessible,
  expectNoProblems,
  shows,
  signIn,
  type Watched,
  openBrowserSite,
} from "./browser.js";
import { overflowsOf, SCREENS } from "./measure.js";

/** Dark mode (issue 20.8, decision 014): the system's setting, a remembered switch, no flash. */

const {
  server,
  api,
  admin,
  open,
  users: { author },
} = await openBrowserSite({ users: { author: { username: "baker" } }, categories: ["Food"] });

let postPath: string;

/** The page's background in each theme (--page). */
const LIGHT = "rgb(248, 250, 252)";
const DARK = "rgb(15, 23, 42)";

/** Code of several kinds, so every highlight colour is on the page axe reads. */
const MARKDOWN = [
  "## Method",
  "",
  "> Bake it **hot**, and [read more](https://example.com/bread).",
  "",
  "```js",
  "// Knead first",
  'import { oven } from "./kitchen.js";',
  "class Loaf extends Bread {",
  "  bake(minutes = 40) {",
  "    return /crust/.test(this.top) && oven.heat(230) !== null;",
  "  }",
  "}",
  "```",
  "",
  "```diff",
  "- 200 g flour",
  "+ 250 g flour",
  "```",
  "",
  "```css",
  ".crust:hover { color: #8b4513; }",
  "```",
  "",
  "| Step | Minutes |",
  "|:-----|--------:|",
  "| Knead | `10` |",
].join("\n");

beforeAll(async () => {
  const post = await addPost(api, author, {
    title: "Bread at night",
    category: "Food",
    description: MARKDOWN,
  });
  postPath = `/posts/details/${post._id}`;
  await addComment(api, admin, post._id, "Read at midnight, in the dark.");
});

const backgroundOf = (page: Page) =>
  page.evaluate<string>(`getComputedStyle(document.documentElement).backgroundColor`);
const themeAttribute = (page: Page) =>
  page.evaluate<string | null>(`document.documentElement.getAttribute("data-theme")`);
/** The theme the server wrote into the first HTML, before any script could run. */
const themeInHtml = (html: string) => /<html lang="en"(?: data-theme="(\w+)")?>/.exec(html)?.[1];

async function openOnSystem(
  options: { javaScriptEnabled?: boolean; phone?: boolean; system: "light" | "dark" },
  screen: (typeof SCREENS)[number] = SCREENS[0],
): Promise<Watched> {
  const site = await open(options);
  await site.page.setViewportSize(screen.size);
  await site.page.emulateMedia({ colorScheme: options.system });
  return site;
}

async function chooseTheme(page: Page, label: "System" | "Light" | "Dark") {
  await page.locator(".theme-menu summary").click();
  await page.locator(".theme-menu").getByRole("button", { name: label }).click();
}

describe("dark mode", () => {
  it("follows a dark system setting from the first paint, without JavaScript", async () => {
    const site = await openOnSystem({ javaScriptEnabled: false, system: "dark" });
    const { page } = site;
    const answer = await page.goto("/");
    const html = (await answer?.text()) ?? "";
    expect(themeInHtml(html)).toBeUndefined();
    expect(html).toContain('<meta name="color-scheme" content="light dark"/>');
    // No script ran: what the stylesheet and the system say is all there is, so no flash.
    expect(await backgroundOf(page)).toBe(DARK);
    expect(
      await page.evaluate<string>(`getComputedStyle(document.documentElement).colorScheme`),
    ).toBe("light dark");

    await page.emulateMedia({ colorScheme: "light" });
    expect(await backgroundOf(page)).toBe(LIGHT);
    expectNoProblems(site);
    await site.context.close();
  });

  it("puts a remembered choice in the first HTML, over the system setting", async () => {
    const site = await openOnSystem({ javaScriptEnabled: false, system: "light" });
    await site.context.addCookies([{ name: "theme", value: "dark", url: server.config.publicUrl }]);
    const answer = await site.page.goto(postPath);
    const html = (await answer?.text()) ?? "";
    expect(themeInHtml(html)).toBe("dark");
    expect(html).toContain('<meta name="color-scheme" content="dark"/>');
    expect(await backgroundOf(site.page)).toBe(DARK);
    // Form controls and scrollbars follow.
    expect(
      await site.page.evaluate<string>(`getComputedStyle(document.documentElement).colorScheme`),
    ).toBe("dark");
    expectNoProblems(site);
    await site.context.close();
  });

  for (const screen of SCREENS) {
    it(`switches in place and remembers the choice across reloads (${screen.name})`, async () => {
      const site = await openOnSystem({ system: "light", phone: screen.name === "phone" }, screen);
      const { page } = site;
      await page.goto(postPath);
      await shows(page.getByRole("heading", { name: "Bread at night" }));
      // The switch fits the header beside Login and Register, on a phone too (the code blocks
      // scroll in their own frames, by design).
      const overflows = await overflowsOf(page);
      expect(overflows.filter((found) => !found.startsWith("<pre>"))).toEqual([]);
      expect(await backgroundOf(page)).toBe(LIGHT);
      await expect
        .poll(() => page.locator(".theme-menu summary").textContent())
        .toBe("Theme: System");

      await page.evaluate(`window.scrollTo(0, 300)`);
      await chooseTheme(page, "Dark");
      await expect.poll(() => themeAttribute(page)).toBe("dark");
      expect(await backgroundOf(page)).toBe(DARK);
      // In place: the reader stays where they were (no navigation, not even to the same page),
      // and the menu closes.
      expect(page.url()).toContain(postPath);
      expect(await page.evaluate<number>(`window.scrollY`)).toBe(300);
      expect(await page.locator(".theme-menu").getAttribute("open")).toBeNull();
      await expect
        .poll(async () => (await site.context.cookies()).find((c) => c.name === "theme")?.value)
        .toBe("dark");

      const reloaded = await page.reload();
      expect(themeInHtml((await reloaded?.text()) ?? "")).toBe("dark");
      expect(await backgroundOf(page)).toBe(DARK);
      await page.locator(".theme-menu summary").click();
      expect(
        await page
          .locator(".theme-menu")
          .getByRole("button", { name: "Dark" })
          .getAttribute("aria-pressed"),
      ).toBe("true");
      await page.locator(".theme-menu summary").click();

      // A client navigation keeps it, and System gives the choice back to the system.
      await page.getByRole("link", { name: "Posts", exact: true }).first().click();
      await page.waitForURL("**/posts");
      expect(await themeAttribute(page)).toBe("dark");
      await chooseTheme(page, "System");
      await expect.poll(() => themeAttribute(page)).toBeNull();
      expect(await backgroundOf(page)).toBe(LIGHT);
      await expect
        .poll(async () => (await site.context.cookies()).some((c) => c.name === "theme"))
        .toBe(false);
      expectNoProblems(site);
      await site.context.close();
    });
  }

  it("switches and remembers without JavaScript too, back on the same page", async () => {
    const site = await openOnSystem({ javaScriptEnabled: false, system: "dark" });
    const { page } = site;
    await page.goto(`${postPath}?comments=1`);
    expect(await backgroundOf(page)).toBe(DARK);
    await chooseTheme(page, "Light");
    await page.waitForURL(`**${postPath}?comments=1`);
    expect(await themeAttribute(page)).toBe("light");
    expect(await backgroundOf(page)).toBe(LIGHT);
    const reloaded = await page.reload();
    expect(themeInHtml((await reloaded?.text()) ?? "")).toBe("light");
    expect(await backgroundOf(page)).toBe(LIGHT);
    expectNoProblems(site);
    await site.context.close();
  });
});

/**
 * axe reads every colour pair it can see: each main page in light (chosen, over a dark system)
 * and in dark (the system's).
 */
describe("accessible in both themes", () => {
  const THEMES = [
    { name: "light", cookie: "light", background: LIGHT },
    { name: "dark", cookie: undefined, background: DARK },
  ] as const;

  for (const theme of THEMES) {
    /** A browser on a dark system, signed in as `user` if given, in this theme. */
    const openAs = async (user?: TestUser) => {
      const site = await openOnSystem({ system: "dark" });
      if (user) await signIn(site, server.config.publicUrl, user.token);
      if (theme.cookie) {
        await site.context.addCookies([
          { name: "theme", value: theme.cookie, url: server.config.publicUrl },
        ]);
      }
      return site;
    };
    const check = async (site: Watched, path: string) => {
      await site.page.goto(path);
      await shows(site.page.locator("main h1, main h2").first());
      expect(await backgroundOf(site.page), path).toBe(theme.background);
      await expectAccessible(site.page);
    };
    const close = async (site: Watched) => {
      expectNoProblems(site);
      await site.context.close();
    };

    it(`home, a post with code, a profile and login pass axe (${theme.name})`, async () => {
      const site = await openAs();
      const { page } = site;
      for (const path of ["/", postPath, `/profile/${author.id}`, "/login"]) {
        await check(site, path);
      }
      // A refused sign-in: the message by the form and the error toast.
      await page.getByLabel("Email").fill("nobody@example.com");
      await page.getByLabel("Password").fill("Wrong-Pass1!");
      await page.getByRole("button", { name: "Login" }).click();
      await shows(page.locator(".toast-error"));
      await expectAccessible(page);
      // The theme menu, open.
      await page.locator(".theme-menu summary").click();
      await shows(page.locator(".theme-menu").getByRole("button", { name: "System" }));
      await expectAccessible(page);
      await close(site);
    });

    it(`a writer's profile dialog and the editor pass axe (${theme.name})`, async () => {
      const site = await openAs(author);
      const { page } = site;
      await check(site, `/profile/${author.id}`);
      await page.getByRole("button", { name: "Update Profile" }).click();
      await shows(page.getByRole("dialog"));
      await expectAccessible(page);
      await check(site, "/posts/create-post");
      await page.getByLabel("Post Description").fill(MARKDOWN);
      await page.getByRole("tab", { name: "Preview" }).click();
      await shows(page.getByRole("tabpanel", { name: "Preview" }).locator("pre code"));
      await expectAccessible(page);
      await check(site, postPath);
      await close(site);
    });

    it(`the admin dashboard and its tables pass axe (${theme.name})`, async () => {
      const site = await openAs(admin);
      for (const path of [
        "/admin-dashboard",
        "/admin-dashboard/users-table",
        "/admin-dashboard/posts-table",
        "/admin-dashboard/comments-table",
      ]) {
        await check(site, path);
      }
      // The confirm dialog over a table, left with Cancel.
      const { page } = site;
      const row = page.getByRole("row").filter({ hasText: "Read at midnight" });
      await row.getByRole("button", { name: "Delete" }).click();
      const dialog = page.getByRole("dialog");
      await shows(dialog.getByRole("heading", { name: "Are you sure?" }));
      await expectAccessible(page);
      await dialog.getByRole("button", { name: "Cancel" }).click();
      await close(site);
    });
  }
});
