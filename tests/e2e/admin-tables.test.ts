import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { seedDemo } from "../../bench/seed.js";
import { expectAccessible, expectNoProblems, shows, openBrowserSite } from "./browser.js";
import { overflowsOf, SCREENS } from "./measure.js";

const { server, admin, open } = await openBrowserSite({ categories: ["Gardening"] });

/** More rows than one page of a dashboard table holds (50). */
const ROWS = 55;

beforeAll(async () => {
  await seedDemo(server.app.deps.db, server.app.deps.storage, {
    users: ROWS,
    categories: 2,
    posts: ROWS,
    likes: 0,
    comments: ROWS,
  });
});

/** The Count column of the table's rows. */
const counts = (page: Page) => page.locator("tbody tr td:first-child").allTextContents();

describe("the dashboard tables", () => {
  for (const screen of SCREENS) {
    it(`come in pages of 50, the admin's own row has no Delete, and comments lead to their posts (${screen.name})`, async () => {
      const site = await open({ signedIn: admin.token });
      const { page } = site;
      await page.setViewportSize(screen.size);
      for (const [table, total] of [
        ["users-table", ROWS + 1],
        ["posts-table", ROWS],
        ["comments-table", ROWS],
      ] as const) {
        await page.goto(`/admin-dashboard/${table}`);
        expect(await counts(page), table).toEqual(
          Array.from({ length: 50 }, (_, i) => String(i + 1)),
        );
        expect(await overflowsOf(page), table).toEqual([]);
        await page
          .getByRole("navigation", { name: /pages$/ })
          .getByRole("link", { name: "2" })
          .click();
        await page.waitForURL(`**/admin-dashboard/${table}?page=2`);
        await expect
          .poll(() => counts(page))
          .toEqual(Array.from({ length: total - 50 }, (_, i) => String(i + 51)));
      }

      await page.goto("/admin-dashboard/users-table");
      const own = page.getByRole("row").filter({ hasText: admin.email });
      await shows(own.getByRole("link", { name: "View Profile" }));
      expect(await own.getByRole("button", { name: "Delete User" }).count()).toBe(0);
      expect(await page.getByRole("button", { name: "Delete User" }).count()).toBe(49);

      await page.goto("/admin-dashboard/comments-table");
      await expectAccessible(page);
      const first = page.getByRole("row").nth(1);
      await first.getByRole("link", { name: "View Post" }).click();
      await page.waitForURL("**/posts/details/**");
      await shows(page.getByRole("heading", { name: "Leave a Reply" }));
      expectNoProblems(site);
      await site.context.close();
    });
  }
});

describe("adding a category that exists", () => {
  for (const javaScriptEnabled of [true, false]) {
    it(`keeps what was typed (JavaScript ${javaScriptEnabled ? "on" : "off"})`, async () => {
      const site = await open({ javaScriptEnabled, signedIn: admin.token });
      const { page } = site;
      await page.goto("/admin-dashboard");
      await page.getByLabel("Category Title").fill("GARDENING");
      await page.getByRole("button", { name: "Add" }).click();
      await shows(page.getByText("Category already exists").first());
      expect(await page.getByLabel("Category Title").inputValue()).toBe("GARDENING");
      // An added one clears the field for the next.
      await page.getByLabel("Category Title").fill(`Herbs ${javaScriptEnabled ? "A" : "B"}`);
      await page.getByRole("button", { name: "Add" }).click();
      await shows(page.getByText("Category Added Successfully").first());
      expect(await page.getByLabel("Category Title").inputValue()).toBe("");
      expectNoProblems(site);
      await site.context.close();
    });
  }
});
