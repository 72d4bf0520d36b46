import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { isoToZonedTime } from "../../contract/publish-time.js";
import { buildUser } from "../support/factories.js";
import { client } from "../support/http.js";
import { pngImage } from "../support/images.js";
import {
  expectAccessible,
  expectNoProblems,
  shows,
  openBrowserSite,
  ownerMenu,
} from "./browser.js";

// DESIGN.md 9: a writer saves a draft, finds it under Drafts, publishes it; schedules another on
// their own clock and sees it reach the home page at its time (decision 011).

/** Not the machine's zone, so a time read in the wrong zone would be hours off. */
const WRITER_ZONE = "America/New_York";

const {
  server,
  open,
  users: { author },
} = await openBrowserSite({ users: ["author"], categories: ["Travel"] });

async function fillPost(page: Page, title: string) {
  await page.goto("/posts/create-post");
  await page.getByLabel("Post Title").fill(title);
  await page.getByLabel("Category").selectOption("Travel");
  await page.getByLabel("Post Description").fill("Notes from the road.");
  await page.getByLabel("Post Image").setInputFiles({
    name: "road.png",
    mimeType: "image/png",
    buffer: await pngImage(320, 200),
  });
  await shows(page.getByRole("img", { name: "Preview of the chosen image" }));
}

/** Whether an anonymous visitor's home page lists `title`. */
async function homeShows(title: string) {
  const response = await fetch(`${server.url}/`);
  return (await response.text()).includes(title);
}

describe("drafts and scheduled posts in the site", () => {
  it("saves a draft, lists it under Drafts for its author alone, and publishes it", async () => {
    const site = await open({ timezoneId: WRITER_ZONE, signedIn: author.token });
    const { page } = site;
    await fillPost(page, "Draft of the coast road");
    await page.getByRole("button", { name: "Save draft" }).click();
    await shows(page.getByRole("status").getByText("Draft saved"));
    await page.waitForURL((url) => url.searchParams.get("tab") === "drafts", { timeout: 10_000 });

    const drafts = page.getByRole("heading", { name: "Drafts" });
    await shows(drafts);
    await shows(page.getByRole("link", { name: "Draft of the coast road" }));
    await shows(page.getByText(/Draft, last saved/));
    await expectAccessible(page);
    expect(await homeShows("Draft of the coast road")).toBe(false);

    await page.getByRole("link", { name: "Draft of the coast road" }).click();
    await shows(page.getByText(/only its author and admins can see this post/));
    // Anyone else: no such page, signed in or not.
    const draftPath = new URL(page.url()).pathname;
    const member = await buildUser(server, client(server.url));
    for (const token of [undefined, member.token]) {
      const visitor = await open({ signedIn: token });
      const answer = await visitor.page.goto(draftPath);
      expect(answer?.status()).toBe(404);
      expect(await visitor.page.getByText("Draft of the coast road").count()).toBe(0);
      await visitor.context.close();
    }
    await (await ownerMenu(page)).getByRole("button", { name: "Edit Post" }).click();
    const dialog = page.getByRole("dialog", { name: "Update Post" });
    await dialog.getByRole("button", { name: "Publish", exact: true }).click();
    await shows(page.getByText("Post Updated Successfully"));
    await shows((await ownerMenu(page)).getByRole("button", { name: "Unpublish" }));
    expect(await page.getByText(/only its author and admins can see this post/).count()).toBe(0);
    expect(await homeShows("Draft of the coast road")).toBe(true);

    // And back: unpublished, it leaves the home page and returns to Drafts.
    await (await ownerMenu(page)).getByRole("button", { name: "Unpublish" }).click();
    await shows(page.getByText("Post moved back to drafts"));
    expect(await homeShows("Draft of the coast road")).toBe(false);
    expectNoProblems(site);
    await site.context.close();
  });

  it("saves an idea without a cover, asks for one to publish it, and publishes it once given (phone)", async () => {
    // A title of this try's own: a retry (vitest's, after a stall) must not find the first try's.
    const title = `An idea without a picture ${String(Date.now())}`;
    const site = await open({ phone: true, signedIn: author.token });
    const { page } = site;
    await page.goto("/posts/create-post");
    await page.getByLabel("Post Title").fill(title);
    await page.getByLabel("Category").selectOption("Travel");
    await page.getByLabel("Post Description").fill("Jotted down on the bus.");
    // Publishing asks for the cover before anything is sent; a draft does not.
    await page.getByRole("button", { name: "Publish" }).click();
    await shows(page.getByText("image is required", { exact: true }));
    await page.getByRole("button", { name: "Save draft" }).click();
    await shows(page.getByRole("status").getByText("Draft saved"));
    await page.waitForURL((url) => url.searchParams.get("tab") === "drafts", { timeout: 10_000 });
    await expectAccessible(page);
    await page.getByRole("link", { name: title }).click();
    await shows(page.getByText(/only its author and admins can see this post/));
    expect(await page.locator(".post-image").count()).toBe(0);
    // Nobody else reads a draft: no likes, sharing or comments on its page.
    expect(await page.getByRole("heading", { name: "Leave a Reply" }).count()).toBe(0);
    expect(await page.getByRole("region", { name: "Likes" }).count()).toBe(0);
    await (await ownerMenu(page)).getByRole("button", { name: "Edit Post" }).click();
    const dialog = page.getByRole("dialog", { name: "Update Post" });
    await dialog.getByRole("button", { name: "Publish", exact: true }).click();
    await shows(page.getByText("image is required").first());
    await page.keyboard.press("Escape");

    await page.locator("#field-post-image").setInputFiles({
      name: "bus.png",
      mimeType: "image/png",
      buffer: await pngImage(320, 200),
    });
    await (await ownerMenu(page)).getByRole("button", { name: "Upload" }).click();
    await shows(page.locator(".post-image"));
    // A draft's page offers Publish beside Edit (issue 50): three controls, not seven.
    const tools = page.locator(".owner-tools");
    expect(
      await tools.locator(":scope > a, :scope > form button, :scope > details > summary").count(),
    ).toBe(3);
    await tools.getByRole("button", { name: "Publish", exact: true }).click();
    await shows(page.getByText("Post published"));
    await shows(page.getByRole("heading", { name: "Leave a Reply" }));
    expect(await homeShows(title)).toBe(true);
    expectNoProblems(site);
    await site.context.close();
  });

  it("schedules a post on the writer's clock, shows it back there, and puts it live at its time", async () => {
    const site = await open({ timezoneId: WRITER_ZONE, signedIn: author.token });
    const { page } = site;
    await fillPost(page, "Scheduled over the pass");
    // A few seconds ahead, written as the writer's wall clock in New York reads it.
    const at = new Date(Math.ceil((Date.now() + 8000) / 1000) * 1000).toISOString();
    const local = isoToZonedTime(at, WRITER_ZONE);
    await page.getByLabel("Publish at (for Schedule)").fill(local);
    await page.getByRole("button", { name: "Schedule" }).click();
    await shows(page.getByRole("status").getByText("Post scheduled"));
    await page.waitForURL((url) => url.searchParams.get("tab") === "scheduled", {
      timeout: 10_000,
    });
    await shows(page.getByRole("link", { name: "Scheduled over the pass" }));
    // Shown in the writer's zone (New York's abbreviation), stored as the instant they meant.
    await shows(page.getByText(/Scheduled for .*(EST|EDT|GMT-[45])/));
    const row = await server.app.deps.db
      .selectFrom("posts")
      .select(["status", "publish_at"])
      .where("title", "=", "Scheduled over the pass")
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: "scheduled", publish_at: at });
    expect(await homeShows("Scheduled over the pass")).toBe(false);

    // Its edit form shows the same wall-clock time back.
    await page.getByRole("link", { name: "Scheduled over the pass" }).click();
    await (await ownerMenu(page)).getByRole("button", { name: "Edit Post" }).click();
    const dialog = page.getByRole("dialog", { name: "Update Post" });
    expect(await dialog.getByLabel("Publish at (for Schedule)").inputValue()).toBe(local);
    await page.keyboard.press("Escape");

    const visitor = await open();
    await visitor.page.goto("/");
    expect(await visitor.page.getByText("Scheduled over the pass").count()).toBe(0);
    const deadline = Date.parse(at) + 10_000;
    while (Date.now() < deadline && !(await homeShows("Scheduled over the pass"))) {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(at));
    await visitor.page.goto("/");
    await shows(visitor.page.getByRole("link", { name: "Scheduled over the pass" }));
    expectNoProblems(visitor);
    expectNoProblems(site);
    await visitor.context.close();
    await site.context.close();
  });
});
