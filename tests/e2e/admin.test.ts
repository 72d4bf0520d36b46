import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { addComment, addPost } from "../support/post-fixtures.js";
import {
  expectAccessible,
  expectNoProblems,
  openBrowserSite,
  rowActions,
  shows,
} from "./browser.js";
import { textLines } from "./measure.js";

const {
  api,
  admin,
  open,
  users: { writer },
} = await openBrowserSite({ users: { writer: { username: "writer" } }, categories: ["Science"] });

const TABLES = ["users-table", "posts-table", "categories-table", "comments-table"];

beforeAll(async () => {
  const post = await addPost(api, writer, { title: "On comets", category: "Science" });
  await addComment(api, writer, post._id, "Comets are dirty snowballs.");
});

/** Deletes through the confirm dialog: Cancel first (nothing happens), then OK. */
async function deleteRow(page: Page, rowText: string, button: string, what: string) {
  const row = page.getByRole("row").filter({ hasText: rowText });
  await row.getByRole("button", { name: button }).click();
  const dialog = page.getByRole("dialog");
  await shows(dialog.getByRole("heading", { name: "Are you sure?" }));
  await shows(dialog.getByText(`Once deleted, you will not be able to recover this ${what}!`));
  await dialog.getByRole("button", { name: "Cancel" }).click();
  expect(await row.count()).toBe(1);
  await row.getByRole("button", { name: button }).click();
  await page.getByRole("dialog").getByRole("button", { name: "OK" }).click();
  await row.first().waitFor({ state: "detached", timeout: 5000 });
}

describe("the audit log", () => {
  it("keeps each date on one line and names whole beside a long target (800 px)", async () => {
    const post = await addPost(api, writer, { title: "A long talk", category: "Science" });
    const comment = await addComment(api, writer, post._id, "Words ".repeat(60).trim());
    for (const path of [`/api/comments/${comment._id}`, `/api/posts/${post._id}`]) {
      const gone = await api.delete(path, { token: admin.token });
      expect(gone.status, gone.text).toBe(200);
    }
    const site = await open({ signedIn: admin.token });
    // A window of 800 px, where the long target squeezes the other columns.
    await site.page.setViewportSize({ width: 800, height: 800 });
    await site.page.goto("/admin-dashboard/audit-log");
    const row = site.page.getByRole("row").filter({ hasText: "Words Words" });
    await shows(row);
    expect(await textLines(row.locator("time"))).toEqual([1]);
    // A name or an action wraps between its words at most ("Deleted comment"), never inside one.
    const cells = row.locator("td.keep-words");
    const words = (await cells.allTextContents()).map((text) => text.trim().split(/\s+/).length);
    expect(await textLines(cells)).toSatisfy((lines: number[]) =>
      lines.every((count, index) => count <= (words[index] ?? 1)),
    );
    expectNoProblems(site);
    await site.context.close();
  });
});

describe("the admin dashboard", () => {
  it("sends visitors and non-admins home", async () => {
    const visitor = await open();
    const member = await open({ signedIn: writer.token });
    for (const site of [visitor, member]) {
      const pages = [...TABLES, "reports-table", "audit-log"].map((t) => `/admin-dashboard/${t}`);
      for (const path of ["/admin-dashboard", ...pages]) {
        await site.page.goto(path);
        expect(new URL(site.page.url()).pathname).toBe("/");
      }
      expect(await site.page.getByRole("link", { name: "Admin Dashboard" }).count()).toBe(0);
      expect(await site.page.getByRole("link", { name: "Create", exact: true }).count()).toBe(0);
      await site.context.close();
    }
  });

  it("shows counts and adds categories", async () => {
    const site = await open({ signedIn: admin.token });
    const { page } = site;
    await page.goto("/");
    await page.getByRole("link", { name: "Admin Dashboard" }).click();
    await page.waitForURL("**/admin-dashboard");
    await shows(page.getByRole("link", { name: "Create", exact: true }));
    const card = (title: string) => page.locator(".summary-card").filter({ hasText: title });
    expect(await card("Users").locator(".summary-count").textContent()).toBe("2");
    expect(await card("Categories").locator(".summary-count").textContent()).toBe("1");
    await expectAccessible(page);

    await page.getByRole("button", { name: "Add" }).click();
    await shows(page.getByText("Title is required"));
    await page.getByLabel("Category Title").fill("a");
    await page.getByRole("button", { name: "Add" }).click();
    await shows(page.getByText("Title is too short - should be 2 chars minimum."));
    await page.getByLabel("Category Title").fill("Gardening");
    await page.getByRole("button", { name: "Add" }).click();
    await shows(page.getByRole("status").getByText("Category Added Successfully"));
    await shows(card("Categories").getByText("2", { exact: true }));
    await page.getByLabel("Category Title").fill("GARDENING");
    await page.getByRole("button", { name: "Add" }).click();
    await shows(page.getByRole("status").getByText("Category already exists"));

    await card("Posts").getByRole("link", { name: "View More Posts" }).click();
    await page.waitForURL("**/admin-dashboard/posts-table");
    expectNoProblems(site);
    await site.context.close();
  });

  it("deletes a comment, a post, a user and a category after confirming, each in the audit log", async () => {
    const site = await open({ signedIn: admin.token });
    const { page } = site;

    await page.goto("/admin-dashboard/comments-table");
    await expectAccessible(page);
    await deleteRow(page, "Comets are dirty snowballs.", "Delete", "comment");
    await shows(page.getByText("No Comments Were Found"));

    await page.goto("/admin-dashboard/posts-table");
    await expectAccessible(page);
    await deleteRow(page, "On comets", "Delete Post", "post");
    await shows(page.getByText("No Posts Were Found"));

    await page.goto("/admin-dashboard/users-table");
    await expectAccessible(page);
    await shows(page.getByRole("row").filter({ hasText: writer.email }));
    // A user's Delete waits in the row's "Actions" menu (issue 50).
    await rowActions(page.getByRole("row").filter({ hasText: writer.email }));
    await deleteRow(page, writer.email, "Delete User", "user");
    await shows(page.getByRole("status").getByText("User has been deleted"));

    await page.goto("/admin-dashboard/categories-table");
    await expectAccessible(page);
    await deleteRow(page, "Science", "Delete Category", "category");
    await deleteRow(page, "Gardening", "Delete Category", "category");
    await shows(page.getByText("No Categories Were Found"));

    expect((await api.get<unknown[]>("/api/posts")).body).toEqual([]);
    expect((await api.get("/api/users/count", { token: admin.token })).body).toEqual({
      userCount: 1,
    });

    // Every one of these actions (and the category added before) is in the log, by the admin.
    await page.getByRole("link", { name: "Audit log" }).click();
    await page.waitForURL("**/admin-dashboard/audit-log");
    const entries = page.getByRole("table").getByRole("row");
    for (const [what, target] of [
      ["Added category", "Gardening"],
      ["Deleted comment", "Comets are dirty snowballs."],
      ["Deleted post", "On comets"],
      ["Deleted user", writer.username],
      ["Deleted category", "Science"],
      ["Deleted category", "Gardening"],
    ] as const) {
      const entry = entries.filter({ hasText: what }).filter({ hasText: target });
      await shows(entry.filter({ hasText: admin.username }));
    }
    await expectAccessible(page);
    expectNoProblems(site);
    await site.context.close();
  });
});
