import type { Page } from "playwright-core";
import { beforeAll, describe, it } from "vitest";
import { type TestUser } from "../support/factories.js";
import { addPost } from "../support/post-fixtures.js";
import { shows, openBrowserSite, ownerMenu } from "./browser.js";

const {
  api,
  admin,
  open,
  users: { author },
} = await openBrowserSite({ users: ["author"], categories: ["Notes"] });

let postPath: string;

beforeAll(async () => {
  postPath = `/posts/details/${(await addPost(api, author, { category: "Notes" }))._id}`;
});

async function asUser(
  user: TestUser | undefined,
  path: string,
  check: (page: Page) => Promise<void>,
) {
  const site = await open({ signedIn: user?.token });
  await site.page.goto(path);
  await check(site.page);
  await site.context.close();
}

describe("every validation message shows in the browser", () => {
  it("register: username too long", () =>
    asUser(undefined, "/register", async (page) => {
      await page.getByLabel("Username").fill("a".repeat(16));
      await page.getByRole("button", { name: "Register" }).click();
      await shows(page.getByText("Username must be at most 15 characters long"));
    }));

  it("profile edit: required username and e-mail, too long username and bio", () =>
    asUser(author, `/profile/${author.id}`, async (page) => {
      await page.getByRole("button", { name: "Update Profile" }).click();
      const dialog = page.getByRole("dialog", { name: "Update Your Profile" });
      await dialog.getByLabel("Username").fill("");
      await dialog.getByLabel("Email").fill("");
      await dialog.getByLabel("Bio").fill("b".repeat(201));
      await dialog.getByRole("button", { name: "Update Profile" }).click();
      await shows(dialog.getByText("Username is required"));
      await shows(dialog.getByText("Email is required"));
      await shows(dialog.getByText("Bio must be at most 200 characters long"));
      await dialog.getByLabel("Username").fill("u".repeat(16));
      await dialog.getByRole("button", { name: "Update Profile" }).click();
      await shows(dialog.getByText("Username must be at most 15 characters long"));
    }));

  it("profile photo: required, and at most 7,000,000 bytes", () =>
    asUser(author, `/profile/${author.id}`, async (page) => {
      await page.getByRole("button", { name: "Upload" }).click();
      await shows(page.getByText("image is required"));
      await page
        .locator("#field-photo")
        .setInputFiles({ name: "big.png", mimeType: "image/png", buffer: Buffer.alloc(7_000_001) });
      await page.getByRole("button", { name: "Upload" }).click();
      await shows(page.getByText("File size is too large"));
    }));

  it("post image: required, and at most 5,242,880 bytes", () =>
    asUser(author, postPath, async (page) => {
      await (await ownerMenu(page)).getByRole("button", { name: "Upload" }).click();
      await shows(page.getByText("image is required"));
      await page
        .locator("#field-post-image")
        .setInputFiles({ name: "big.png", mimeType: "image/png", buffer: Buffer.alloc(5_242_881) });
      await (await ownerMenu(page)).getByRole("button", { name: "Upload" }).click();
      await shows(page.getByText("File size is too large"));
    }));

  it("update post: description required", () =>
    asUser(author, postPath, async (page) => {
      await (await ownerMenu(page)).getByRole("button", { name: "Edit Post" }).click();
      const dialog = page.getByRole("dialog", { name: "Update Post" });
      await dialog.getByLabel("Description").fill("");
      await dialog.getByRole("button", { name: "Update Post" }).click();
      await shows(dialog.getByText("Description is required"));
    }));

  it("add category: too long", () =>
    asUser(admin, "/admin-dashboard", async (page) => {
      await page.getByLabel("Category Title").fill("c".repeat(51));
      await page.getByRole("button", { name: "Add" }).click();
      await shows(page.getByText("Title is too long - should be 50 chars maximum."));
    }));
});
