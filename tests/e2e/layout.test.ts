import { beforeAll, describe, expect, it } from "vitest";
import { buildUser } from "../support/factories.js";
import { client } from "../support/http.js";
import { addCategory, addComment, addPost } from "../support/post-fixtures.js";
import {
  expectAccessible,
  expectNoProblems,
  openBrowserSite,
  rowActions,
  shows,
  signIn,
} from "./browser.js";
import {
  backgrounds,
  cellFits,
  isRed,
  overflowOf,
  overflowsOf,
  SCREENS,
  scrollToTopOf,
  uncovered,
} from "./measure.js";

const {
  server,
  api,
  admin,
  open,
  users: { writer },
} = await openBrowserSite({ users: { writer: { username: "Wordsworthian12" } } });

let postId: string;
let categoryTitle: string;

/** Unbroken runs of letters, as a pasted link or a joke title makes them. */
const longWord = (length: number) => "Pneumonoultramicroscopic".repeat(20).slice(0, length);
const LONG_LINK = `https://example.com/${"very-long-path-segment".repeat(12)}`;

beforeAll(async () => {
  categoryTitle = (await addCategory(api, admin, longWord(50))).title;
  const post = await addPost(api, writer, {
    title: `A ${longWord(150)} title`,
    category: categoryTitle,
    description: `See ${LONG_LINK} and ${longWord(300)}.`,
  });
  postId = post._id;
  await addComment(api, writer, postId, `${longWord(400)} ${LONG_LINK}`);
  const bio = await api.put(
    `/api/users/profile/${writer.id}`,
    { username: writer.username, email: writer.email, bio: longWord(200) },
    { token: writer.token },
  );
  expect(bio.status, bio.text).toBe(200);
});

describe("long words and links in what people write", () => {
  const pages = () => [
    "/",
    "/posts",
    `/posts/details/${postId}`,
    `/posts/categories/${encodeURIComponent(categoryTitle)}`,
    `/profile/${writer.id}`,
    "/admin-dashboard",
    "/admin-dashboard/users-table",
    "/admin-dashboard/posts-table",
    "/admin-dashboard/categories-table",
    "/admin-dashboard/comments-table",
  ];

  for (const screen of SCREENS) {
    it(`never make a page wider than the screen, nor run past a box (${screen.name})`, async () => {
      const site = await open({ signedIn: admin.token });
      const { page } = site;
      await page.setViewportSize(screen.size);
      for (const path of pages()) {
        await page.goto(path);
        await shows(page.getByRole("heading", { level: 1 }));
        expect(await overflowsOf(page), path).toEqual([]);
      }
      // The header's category list holds the long title too.
      if (screen.name === "phone") {
        await page.getByRole("button", { name: "Open menu" }).click();
        await page.getByRole("navigation", { name: "Side menu" }).getByText("Categories").click();
        await shows(page.getByRole("link", { name: categoryTitle }));
        expect(
          await overflowOf(page.getByRole("navigation", { name: "Side menu" })),
        ).toBeLessThanOrEqual(1);
      }
      expectNoProblems(site);
      await site.context.close();
    });
  }
});

describe("the phone's header", () => {
  it("keeps one compact bar in view while reading, and opens the search from it (phone)", async () => {
    const longRead = await addPost(api, writer, {
      title: "A long read",
      category: categoryTitle,
      description: Array.from({ length: 40 }, (_, n) => `Paragraph ${String(n + 1)}.`).join("\n\n"),
    });
    const site = await open();
    const { page } = site;
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`/posts/details/${longRead._id}`);
    // At the top: the contact strip, then the bar (issue 50: 167 of 844 px before).
    const header = page.getByRole("banner");
    expect((await header.boundingBox())?.height).toBeLessThanOrEqual(72);
    await scrollToTopOf(page.getByText("Paragraph 30.", { exact: true }));
    const bar = await header.boundingBox();
    expect(bar?.y).toBe(0);
    expect(bar?.height).toBeLessThanOrEqual(72);
    expect(await uncovered(page.getByText("Paragraph 33.", { exact: true }))).toBe(true);
    // The search box waits behind its button, and takes the typing at once.
    const box = page.getByRole("combobox", { name: "Search posts" });
    expect(await box.isVisible()).toBe(false);
    await header.getByRole("button", { name: "Search", exact: true }).click();
    await shows(box);
    await expect
      .poll(() =>
        box.evaluate(
          (node) =>
            (node as unknown as { ownerDocument: { activeElement: unknown } }).ownerDocument
              .activeElement === node,
        ),
      )
      .toBe(true);
    await box.fill("long read");
    await box.press("Enter");
    await page.waitForURL((url) => url.pathname === "/search");
    await shows(page.getByRole("link", { name: "A long read" }));
    expectNoProblems(site);
    await site.context.close();
  });
});

describe("buttons say what they do", () => {
  for (const screen of SCREENS) {
    it(`a delete looks dangerous, Cancel secondary, and table actions fit their cells (${screen.name})`, async () => {
      const site = await open({ signedIn: admin.token });
      const { page } = site;
      await page.setViewportSize(screen.size);
      for (const table of ["users-table", "posts-table", "categories-table", "comments-table"]) {
        await page.goto(`/admin-dashboard/${table}`);
        await shows(page.getByRole("row").nth(1));
        const fits = await cellFits(
          page.getByRole("row").locator("td:last-child :is(a, button, summary):visible"),
        );
        expect(fits.length, table).toBeGreaterThan(0);
        expect(new Set(fits), table).toEqual(new Set(["fits"]));
        // The users table keeps a row's actions in its "Actions" menu (issue 50).
        if (table === "users-table") {
          await rowActions(page.getByRole("row").filter({ hasText: writer.email }));
        }
        const actions = page
          .getByRole("row")
          .locator("td:last-child")
          .getByRole("button", { name: /^Delete/ });
        await shows(actions);
        for (const color of await backgrounds(actions)) {
          expect(isRed(color), `${table}: ${color}`).toBe(true);
        }
      }
      // The users table's View Profile is not a delete: it does not look like one.
      await page.goto("/admin-dashboard/users-table");
      const menu = await rowActions(page.getByRole("row").filter({ hasText: writer.email }));
      const [view] = await backgrounds(menu.getByRole("link", { name: "View Profile" }));
      expect(view).toBeDefined();
      expect(isRed(view)).toBe(false);

      await menu.getByRole("button", { name: "Delete User" }).click();
      const dialog = page.getByRole("dialog");
      await shows(dialog.getByRole("heading", { name: "Are you sure?" }));
      const [ok] = await backgrounds(dialog.getByRole("button", { name: "OK" }));
      const [cancel] = await backgrounds(dialog.getByRole("button", { name: "Cancel" }));
      expect(isRed(ok)).toBe(true);
      expect(isRed(cancel)).toBe(false);
      expect(cancel).not.toBe(ok);
      await expectAccessible(page);
      await dialog.getByRole("button", { name: "Cancel" }).click();
      expectNoProblems(site);
      await site.context.close();
    });
  }
});

describe("the menu on a phone without JavaScript", () => {
  it("opens as a page, from which every category and the account are reachable", async () => {
    const site = await open({ javaScriptEnabled: false });
    const { page } = site;
    await page.setViewportSize(SCREENS[1].size);
    await page.goto("/posts");
    await page.getByRole("button", { name: "Open menu" }).click();
    await page.waitForURL("**/menu");
    const menu = page.getByRole("navigation", { name: "Menu" });
    for (const entry of ["Home", "Posts"]) await shows(menu.getByRole("link", { name: entry }));
    expect(await menu.getByRole("link", { name: "Profile" }).count()).toBe(0);
    expect(await overflowsOf(page)).toEqual([]);
    await menu.getByRole("link", { name: categoryTitle }).click();
    await page.waitForURL("**/posts/categories/**");
    await shows(page.getByRole("heading", { name: categoryTitle, level: 1 }));

    // A session of its own: Log Out below ends it.
    const reader = await buildUser(server, client(server.url));
    await signIn(site, server.config.publicUrl, reader.token);
    await page.getByRole("button", { name: "Open menu" }).click();
    await shows(menu.getByRole("link", { name: "Profile" }));
    expect(await menu.getByRole("link", { name: "Dashboard" }).count()).toBe(0);
    await menu.getByRole("button", { name: "Log Out" }).click();
    await page.waitForURL((url) => url.pathname === "/");
    await shows(page.getByRole("link", { name: "Login" }));
    expectNoProblems(site);
    await site.context.close();
  });

  it("is the same page, accessible, for a reader with JavaScript", async () => {
    const site = await open({ phone: true, signedIn: admin.token });
    const { page } = site;
    await page.goto("/menu");
    const menu = page.getByRole("navigation", { name: "Menu" });
    for (const entry of ["Home", "Posts", "Create Post", "Dashboard", "Profile"]) {
      await shows(menu.getByRole("link", { name: entry }));
    }
    await expectAccessible(page);
    // The button itself opens the panel in place.
    await page.getByRole("button", { name: "Open menu" }).click();
    await shows(page.getByRole("navigation", { name: "Side menu" }));
    expect(new URL(page.url()).pathname).toBe("/menu");
    expectNoProblems(site);
    await site.context.close();
  });
});
