import { describe, expect, it } from "vitest";
import { buildUser, type TestUser } from "../support/factories.js";
import { addComment, addPost } from "../support/post-fixtures.js";
import {
  expectAccessible,
  expectNoProblems,
  shows,
  type Watched,
  openBrowserSite,
} from "./browser.js";

/** Following writers, a reading list and notifications (DESIGN.md 9, "Reading"; decision 016). */
const { server, api, open } = await openBrowserSite({ categories: ["Travel"] });

const opened: Watched[] = [];

/** A signed-in browser for `user`, closed after its test. */
async function browse(user: TestUser, javaScriptEnabled = true) {
  const site = await open({ javaScriptEnabled, signedIn: user.token });
  opened.push(site);
  return site;
}

async function closeAll() {
  for (const site of opened.splice(0)) await site.context.close();
}

describe("following", () => {
  it("follows a writer from their profile and finds their new post under Following", async () => {
    const writer = await buildUser(server, api);
    const reader = await buildUser(server, api);
    await addPost(api, writer, { title: "Before the follow", category: "Travel" });
    const site = await browse(reader);
    const { page } = site;

    await page.goto(`/profile/${writer.id}`);
    await shows(page.getByText("0 followers"));
    await page.getByRole("button", { name: `Follow ${writer.username}` }).click();
    await shows(page.getByRole("button", { name: `Following ${writer.username}`, pressed: true }));
    await shows(page.getByText("1 follower", { exact: true }));
    await expectAccessible(page);

    await addPost(api, writer, { title: "Fresh from Lisbon", category: "Travel" });
    await page.goto("/");
    await page.getByRole("link", { name: "Following" }).click();
    await page.waitForURL(/tab=following/);
    const feed = page.getByRole("region", { name: "From writers you follow" });
    await shows(feed.getByRole("link", { name: "Fresh from Lisbon" }));
    await shows(feed.getByRole("link", { name: "Before the follow" }));
    await expectAccessible(page);
    expectNoProblems(site);
    await closeAll();
  });

  it("follows from a post page without JavaScript", async () => {
    const writer = await buildUser(server, api);
    const reader = await buildUser(server, api);
    const post = await addPost(api, writer, { title: "Plain forms", category: "Travel" });
    const site = await browse(reader, false);
    const { page } = site;

    await page.goto(`/posts/details/${post._id}`);
    const author = page.getByRole("complementary", { name: "About the author" });
    await author.getByRole("button", { name: `Follow ${writer.username}` }).click();
    await page.waitForURL(`**/posts/details/${post._id}`);
    await shows(author.getByRole("button", { name: `Following ${writer.username}` }));
    expect(
      await author
        .getByRole("button", { name: `Following ${writer.username}` })
        .getAttribute("aria-pressed"),
    ).toBe("true");

    await page.goto("/?tab=following");
    await shows(page.getByRole("link", { name: "Plain forms" }).first());
    expectNoProblems(site);
    await closeAll();
  });
});

describe("reading list", () => {
  it("saves a post from its card and finds it in the reading list", async () => {
    const writer = await buildUser(server, api);
    const reader = await buildUser(server, api);
    // Its own title on each attempt (a retry adds another post).
    const title = `Worth keeping ${Math.random().toString(36).slice(2, 7)}`;
    await addPost(api, writer, { title, category: "Travel" });
    const site = await browse(reader);
    const { page } = site;
    const saveButton = (saved: boolean) =>
      page.getByRole("button", { name: new RegExp(`^${saved ? "Saved" : "Save"}\\b.*${title}`) });
    const titleLink = page.getByRole("link", { name: title, exact: true });

    await page.goto("/");
    const save = saveButton(false);
    expect(await save.getAttribute("aria-pressed")).toBe("false");
    await save.click();
    await shows(saveButton(true));
    expect(await saveButton(true).getAttribute("aria-pressed")).toBe("true");

    await page.locator("summary").filter({ hasText: reader.username }).click();
    await page.getByRole("link", { name: "Reading list" }).click();
    await page.waitForURL("**/reading-list");
    await shows(page.getByRole("heading", { name: "Reading list" }));
    await shows(titleLink);
    await expectAccessible(page);

    // Taken off the list from the post page.
    await titleLink.click();
    await page.waitForURL("**/posts/details/**");
    await saveButton(true).click();
    await shows(saveButton(false));
    await page.goto("/reading-list");
    await shows(page.getByText("Nothing saved yet."));
    expectNoProblems(site);
    await closeAll();
  });
});

describe("notifications", () => {
  it("ring the bell when a member comments on your post, and clear once seen", async () => {
    const writer = await buildUser(server, api);
    const reader = await buildUser(server, api);
    const post = await addPost(api, writer, { title: "Talk to me", category: "Travel" });
    const site = await browse(writer);
    const { page } = site;

    await page.goto("/");
    await shows(page.getByRole("link", { name: "Notifications", exact: true }));
    await addComment(api, reader, post._id, "Lovely trip");
    await page.goto("/");
    const bell = page.getByRole("link", { name: "Notifications, 1 unread" });
    await shows(bell);
    await bell.click();
    await page.waitForURL("**/notifications");
    const item = page.getByRole("listitem").filter({ hasText: `${reader.username} commented on` });
    await shows(item.getByRole("link", { name: "Talk to me" }));
    await shows(page.getByRole("link", { name: "Notifications", exact: true }));
    await expectAccessible(page);
    // The bell, the list and the tabs read in the dark palette too.
    await page.emulateMedia({ colorScheme: "dark" });
    await expectAccessible(page);
    await page.goto("/?tab=following");
    await expectAccessible(page);
    await page.emulateMedia({ colorScheme: "light" });

    // Seen: the count stays cleared on the next page too.
    await page.goto("/notifications");
    await item.getByRole("link", { name: "Talk to me" }).click();
    await page.waitForURL(`**/posts/details/${post._id}*`);
    await shows(page.getByRole("link", { name: "Notifications", exact: true }));
    expect(await page.getByRole("link", { name: /unread/ }).count()).toBe(0);
    expectNoProblems(site);
    await closeAll();
  });
});
