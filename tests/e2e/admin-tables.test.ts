import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { seedDemo } from "../../bench/seed.js";
import { buildUser } from "../support/factories.js";
import {
  expectAccessible,
  expectNoProblems,
  openBrowserSite,
  rowActions,
  shows,
} from "./browser.js";
import { overflowsOf, SCREENS, withinScreen } from "./measure.js";

const { server, api, admin, open } = await openBrowserSite({ categories: ["Gardening"] });

/** More rows than one page of a dashboard table holds (50; the users table's 20). */
const ROWS = 55;

/** Found by a search for "kingfisher": two by their names, one by its address only. */
const KINGFISHERS = [
  { username: "KingfisherA", email: "kingfisher.a@example.com" },
  { username: "kingfisherB", email: "kfb@example.com" },
  { username: "Wren", email: "wren.KINGFISHER@example.com" },
];

/** The admin, the seeded members and the kingfishers. */
const USERS = 1 + ROWS + KINGFISHERS.length;

beforeAll(async () => {
  await seedDemo(server.app.deps.db, server.app.deps.storage, {
    users: ROWS,
    categories: 2,
    posts: ROWS,
    likes: 0,
    comments: ROWS,
  });
  // Made after the seeded members (a year old and more): the newest three, the table's first rows.
  for (const kingfisher of KINGFISHERS) await buildUser(server, api, kingfisher);
});

/** The Count column of the table's rows. */
const counts = (page: Page) => page.locator("tbody tr td:first-child").allTextContents();

describe("the dashboard tables", () => {
  for (const screen of SCREENS) {
    it(`come in pages of 50 (users 20), the admin's own row has no Delete, and comments lead to their posts (${screen.name})`, async () => {
      const site = await open({ signedIn: admin.token });
      const { page } = site;
      await page.setViewportSize(screen.size);
      for (const [table, total, perPage] of [
        ["users-table", USERS, 20],
        ["posts-table", ROWS, 50],
        ["comments-table", ROWS, 50],
      ] as const) {
        await page.goto(`/admin-dashboard/${table}`);
        expect(await counts(page), table).toEqual(
          Array.from({ length: perPage }, (_, i) => String(i + 1)),
        );
        expect(await overflowsOf(page), table).toEqual([]);
        await page
          .getByRole("navigation", { name: /pages$/ })
          .getByRole("link", { name: "2" })
          .click();
        await page.waitForURL(`**/admin-dashboard/${table}?page=2`);
        const second = Math.min(perPage, total - perPage);
        await expect
          .poll(() => counts(page))
          .toEqual(Array.from({ length: second }, (_, i) => String(i + perPage + 1)));
      }

      await page.goto("/admin-dashboard/users-table");
      const own = page.getByRole("row").filter({ hasText: admin.email });
      await rowActions(own);
      await shows(own.getByRole("link", { name: "View Profile" }));
      expect(
        await own.getByRole("button", { name: "Delete User", includeHidden: true }).count(),
      ).toBe(0);
      // Every other row of the page has its Delete User, in its closed menu.
      const deletes = page.getByRole("button", { name: "Delete User", includeHidden: true });
      expect(await deletes.count()).toBe(19);

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

/** The users table's rows (its header row left out). */
const userRows = (page: Page) => page.locator("tbody").getByRole("row");

/** Searches the users table as a person does: the page's own search box, then its button. */
async function searchUsers(page: Page, text: string) {
  const form = page.getByRole("main").getByRole("search");
  await form.getByLabel("Search users").fill(text);
  await form.getByRole("button", { name: "Search", exact: true }).click();
}

describe("the users table (issue 50)", () => {
  it("searches and pages in the database, one line a user with its actions in a menu (desktop)", async () => {
    const site = await open({ signedIn: admin.token });
    const { page } = site;
    await page.setViewportSize(SCREENS[0].size);
    await page.goto("/admin-dashboard/users-table");
    expect(await page.getByRole("columnheader").allTextContents()).toEqual([
      "Count",
      "User",
      "Email",
      "Joined",
      "Role",
      "Action",
    ]);
    const rows = userRows(page);
    expect(await rows.count()).toBe(20);
    // One line a user: no row as tall as two lines of text beside its picture.
    for (let index = 0; index < 20; index += 1) {
      const box = await rows.nth(index).boundingBox();
      expect(box?.height, `row ${String(index + 1)}`).toBeLessThan(64);
    }
    const admins = rows.filter({ hasText: admin.email });
    await shows(admins.getByRole("cell", { name: "Admin", exact: true }));
    const first = rows.first();
    await shows(first.getByRole("cell", { name: "Member", exact: true }));
    expect(await first.getByRole("cell").nth(3).textContent()).toMatch(/^\w{3} \w{3} \d{2} \d{4}$/);

    // Each row's actions wait in its menu: nothing of them shows until it is opened.
    expect(await page.getByRole("link", { name: "View Profile" }).count()).toBe(0);
    expect(await page.locator("tbody").getByText("Actions").count()).toBe(20);
    const menu = await rowActions(first);
    await shows(menu.getByRole("link", { name: "View Profile" }));
    await shows(menu.getByText("Suspend", { exact: true }));
    await menu.getByRole("button", { name: "Delete User" }).click();
    const dialog = page.getByRole("dialog");
    await shows(dialog.getByRole("heading", { name: "Are you sure?" }));
    await dialog.getByRole("button", { name: "Cancel" }).click();
    expect(await rows.count()).toBe(20);
    await expectAccessible(page);
    // One menu open at a time: opening another row's (clear of this one's panel) closes this one.
    await rowActions(rows.nth(10));
    expect(await first.getByRole("link", { name: "View Profile" }).count()).toBe(0);
    expect(await overflowsOf(page)).toEqual([]);

    // The second page goes on counting.
    await page
      .getByRole("navigation", { name: "Users pages" })
      .getByRole("link", { name: "2" })
      .click();
    await page.waitForURL("**/admin-dashboard/users-table?page=2");
    await expect.poll(async () => (await counts(page))[0]).toBe("21");

    // A search narrows the list to names and addresses that hold it, in any case.
    await searchUsers(page, "KINGFISHER");
    await page.waitForURL("**/admin-dashboard/users-table?q=KINGFISHER");
    await shows(page.getByRole("status").filter({ hasText: "3 users match “KINGFISHER”." }));
    await expect.poll(() => counts(page)).toEqual(["1", "2", "3"]);
    for (const kingfisher of KINGFISHERS) {
      await shows(rows.filter({ hasText: kingfisher.username }));
    }
    expect(await page.getByRole("navigation", { name: "Users pages" }).count()).toBe(0);
    expect(await page.getByLabel("Search users").inputValue()).toBe("KINGFISHER");

    // A search's pages are that search's: every address holds "example.com".
    await searchUsers(page, "example.com");
    await page.waitForURL("**/admin-dashboard/users-table?q=example.com");
    await page
      .getByRole("navigation", { name: "Users pages" })
      .getByRole("link", { name: "2" })
      .click();
    await page.waitForURL("**/admin-dashboard/users-table?q=example.com&page=2");
    await expect.poll(async () => (await counts(page))[0]).toBe("21");

    // Nothing found says so; SPEC's sentence stays for a table with no users at all.
    await searchUsers(page, "nobody-by-that-name");
    await shows(page.getByText("No users match “nobody-by-that-name”."));
    expect(await page.getByText("No Users Were Found").count()).toBe(0);
    await page.getByRole("link", { name: "Clear" }).click();
    await page.waitForURL(
      (url) => url.pathname === "/admin-dashboard/users-table" && url.search === "",
    );
    await expect.poll(() => rows.count()).toBe(20);
    expectNoProblems(site);
    await site.context.close();
  });

  it("searches and opens a row's menu without JavaScript", async () => {
    const site = await open({ javaScriptEnabled: false, signedIn: admin.token });
    const { page } = site;
    await page.goto("/admin-dashboard/users-table");
    await searchUsers(page, "wren");
    await page.waitForURL("**/admin-dashboard/users-table?q=wren");
    const rows = userRows(page);
    expect(await rows.count()).toBe(1);
    const menu = await rowActions(rows.first());
    await shows(menu.getByRole("link", { name: "View Profile" }));
    await shows(menu.getByRole("button", { name: "Delete User" }));
    expectNoProblems(site);
    await site.context.close();
  });

  it("are cards on a phone, five or more to a screen (phone)", async () => {
    const site = await open({ signedIn: admin.token });
    const { page } = site;
    const screen = SCREENS[1].size;
    await page.setViewportSize(screen);
    await page.goto("/admin-dashboard/users-table");
    const cards = userRows(page);
    expect(await cards.count()).toBe(20);
    const heights: number[] = [];
    for (let index = 0; index < 20; index += 1) {
      const box = await cards.nth(index).boundingBox();
      expect(box, `card ${String(index + 1)}`).not.toBeNull();
      heights.push(box?.height ?? screen.height);
    }
    expect(Math.max(...heights)).toBeLessThanOrEqual(150);
    // Even the five tallest together fit in the screen's height.
    const tallest = [...heights].sort((a, b) => b - a).slice(0, 5);
    expect(tallest.reduce((sum, height) => sum + height, 0)).toBeLessThanOrEqual(screen.height);
    expect(await overflowsOf(page)).toEqual([]);

    // A card's name, address and Actions lie inside the screen, each on one line.
    const card = cards.filter({ hasText: KINGFISHERS[0]?.email ?? "" });
    const measured = await withinScreen(
      card.locator("td .table-user, td:nth-child(3), td :is(a, button, summary):visible"),
      40,
    );
    expect(measured).toEqual(["ok", "ok", "ok"]);
    // Its menu opens over the cards below, inside the screen's width.
    const menu = await rowActions(card);
    await shows(menu.getByRole("link", { name: "View Profile" }));
    expect(
      new Set(await withinScreen(menu.locator(":is(a, button, summary):visible"), 60)),
    ).toEqual(new Set(["ok"]));
    expect(await overflowsOf(page)).toEqual([]);
    await expectAccessible(page);
    expectNoProblems(site);
    await site.context.close();
  });
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
