import { beforeAll, describe, expect, it } from "vitest";
import { buildUser } from "../support/factories.js";
import { addPost } from "../support/post-fixtures.js";
import { expectAccessible, expectNoProblems, shows, openBrowserSite } from "./browser.js";

/** Searching from the header: suggestions, the results page, and the same without JavaScript. */
const { server, api, open } = await openBrowserSite({ categories: ["Travel"] });

let lighthouseId: string;

beforeAll(async () => {
  const author = await buildUser(server, api, { username: "keeper" });
  lighthouseId = (
    await addPost(api, author, {
      title: "Lighthouses of the north",
      category: "Travel",
      description: "Every lighthouse on the coast keeps its own rhythm of light.",
    })
  )._id;
  await addPost(api, author, {
    title: "Harbour walks",
    category: "Travel",
    description: "From the harbour you can see the old lighthouse blink at dusk.",
  });
  // Enough ferry posts for a second page of results.
  for (let i = 1; i <= 7; i++) {
    await addPost(api, author, {
      title: `Ferry crossing ${String(i)}`,
      category: "Travel",
      description: `Ferry number ${String(i)} leaves at dawn.`,
    });
  }
});

describe("the header's search box", () => {
  it("suggests posts while typing, and opens the one picked with the keyboard", async () => {
    const site = await open();
    const { page } = site;
    await page.goto("/");
    const box = page.getByRole("combobox", { name: "Search posts" });
    await box.click();
    await box.pressSequentially("lighthou", { delay: 20 });
    const list = page.getByRole("listbox", { name: "Suggested posts" });
    await shows(list);
    await expect.poll(() => list.getByRole("option").count()).toBe(2);
    // Best first: the title match above the body match.
    expect(await list.getByRole("option").first().textContent()).toContain(
      "Lighthouses of the north",
    );
    expect(await box.getAttribute("aria-expanded")).toBe("true");
    await expectAccessible(page);

    await box.press("ArrowDown");
    await box.press("ArrowDown");
    const second = list.getByRole("option").nth(1);
    expect(await second.getAttribute("aria-selected")).toBe("true");
    expect(await box.getAttribute("aria-activedescendant")).toBe(await second.getAttribute("id"));
    await box.press("ArrowUp");
    expect(await list.getByRole("option").first().getAttribute("aria-selected")).toBe("true");

    // Escape closes the list; a key down opens it again.
    await box.press("Escape");
    expect(await box.getAttribute("aria-expanded")).toBe("false");
    expect(await list.isHidden()).toBe(true);
    await box.press("ArrowDown");
    expect(await box.getAttribute("aria-expanded")).toBe("true");

    await box.press("Enter");
    await page.waitForURL(`**/posts/details/${lighthouseId}`);
    await shows(page.getByRole("heading", { level: 1, name: "Lighthouses of the north" }));
    expectNoProblems(site);
    await site.context.close();
  });

  it("keeps what was typed before the page's script arrived", async () => {
    const site = await open();
    const { page } = site;
    // The scripts are held back until the reader has typed, as on a slow connection.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route("**/assets/*.js", async (route) => {
      await held;
      await route.continue();
    });
    await page.goto("/posts", { waitUntil: "domcontentloaded" });
    const box = page.getByRole("combobox", { name: "Search posts" });
    await box.fill("lighthouse");
    release();
    // Hydrated, effects run: the theme menu's in-place field appears only then.
    await page.locator(".theme-menu input[name=inPlace]").waitFor({ state: "attached" });
    expect(await box.inputValue()).toBe("lighthouse");
    await box.press("Enter");
    await page.waitForURL("**/search?q=lighthouse");
    expectNoProblems(site);
    await site.context.close();
  });

  it("searches on Enter and shows the results page with the matches marked", async () => {
    const site = await open();
    const { page } = site;
    await page.goto("/posts");
    const box = page.getByRole("combobox", { name: "Search posts" });
    await box.fill("lighthouse -harbour");
    await box.press("Enter");
    await page.waitForURL("**/search?q=lighthouse+-harbour");
    await shows(page.getByRole("heading", { level: 1, name: "Search: lighthouse -harbour" }));
    expect(await page.getByRole("status").filter({ hasText: "found" }).textContent()).toBe(
      "1 post found",
    );
    const cards = page.locator("article");
    expect(await cards.count()).toBe(1);
    expect(await cards.locator("mark").allTextContents()).toEqual(["lighthouse"]);
    // The box keeps the search the page shows.
    expect(await box.inputValue()).toBe("lighthouse -harbour");
    await expectAccessible(page);
    expectNoProblems(site);
    await site.context.close();
  });
});

describe("the results page", () => {
  it("works without JavaScript: the header form, highlights and pages", async () => {
    const site = await open({ javaScriptEnabled: false });
    const { page } = site;
    await page.goto("/");
    const box = page.getByRole("combobox", { name: "Search posts" });
    await box.fill("ferries");
    await box.press("Enter");
    await page.waitForURL("**/search?q=ferries");
    expect(await page.getByRole("status").filter({ hasText: "found" }).textContent()).toBe(
      "7 posts found",
    );
    expect(await page.locator("article").count()).toBe(6);
    expect(await page.locator("article mark").first().textContent()).toBe("Ferry");
    await page.getByRole("link", { name: "Page 2" }).click();
    await page.waitForURL("**/search?q=ferries&page=2");
    expect(await page.locator("article").count()).toBe(1);
    expect(await page.getByRole("status").filter({ hasText: "found" }).textContent()).toBe(
      "7 posts found, page 2",
    );
    expectNoProblems(site);
    await site.context.close();
  });

  it("says clearly what is wrong with a blank, overlong or empty search, and when nothing matches", async () => {
    const site = await open();
    const { page } = site;
    const cases: [string, string][] = [
      ["/search?q=%20", "Search text is required"],
      [`/search?q=${"a".repeat(201)}`, "Search text must be at most 200 characters long"],
      ["/search?q=-harbour", "Search text must include a word to look for"],
    ];
    for (const [address, message] of cases) {
      await page.goto(address);
      expect(await page.getByRole("alert").textContent()).toBe(message);
    }
    await page.goto("/search?q=zeppelin");
    await shows(page.getByRole("heading", { name: "No posts match “zeppelin”" }));
    await page.goto("/search");
    await shows(page.getByRole("searchbox", { name: "Search text" }));
    await expectAccessible(page);
    expectNoProblems(site);
    await site.context.close();
  });
});
