import { beforeAll, describe, expect, it } from "vitest";
import { client } from "../support/http.js";
import { pngImage } from "../support/images.js";
import { addPost } from "../support/post-fixtures.js";
import {
  expectAccessible,
  expectNoProblems,
  shows,
  openBrowserSite,
  ownerMenu,
} from "./browser.js";

const {
  server,
  api,
  open,
  users: { owner, reader },
} = await openBrowserSite({
  users: { owner: { username: "owner" }, reader: { username: "reader" } },
  categories: ["Food", "Travel"],
});

let postPath: string;
let postId: string;

beforeAll(async () => {
  const post = await addPost(api, owner, {
    title: "Bread at home",
    category: "Food",
    description: "Flour, water, salt, time.",
  });
  postId = post._id;
  postPath = `/posts/details/${post._id}`;
});

describe("a post page", () => {
  it("gives a visitor the post and its comments, but no controls", async () => {
    const site = await open();
    const { page } = site;
    await page.goto(postPath);
    await shows(page.getByText("No Comments Yet! Be the first one."));
    await shows(page.getByRole("link", { name: "Log in" }));
    for (const control of ["Like", "Edit Post", "Delete Post", "Upload", "Comment"]) {
      expect(await page.getByRole("button", { name: control, exact: true }).count()).toBe(0);
    }
    expect(await page.getByText("Share").count()).toBe(0);
    await site.context.close();
  });

  it("lets a reader like, see likers, share and comment, and edit and delete their own comment", async () => {
    const site = await open({ signedIn: reader.token });
    const { page } = site;
    await page.goto(postPath);
    for (const control of ["Edit Post", "Delete Post", "Upload"]) {
      expect(await page.getByRole("button", { name: control }).count()).toBe(0);
    }

    await page.getByRole("button", { name: "Like", exact: true }).click();
    await shows(page.getByRole("button", { name: "Unlike" }));
    expect(await page.getByRole("button", { name: "Unlike" }).getAttribute("aria-pressed")).toBe(
      "true",
    );
    await page.getByRole("button", { name: "1 like" }).hover();
    await shows(page.locator(".likers-popup").getByText("reader"));
    await page.getByRole("button", { name: "1 like" }).click();
    const likes = page.getByRole("dialog", { name: "Likes" });
    await shows(likes.getByText("reader"));
    await likes.getByRole("button", { name: "Close" }).click();
    await page.getByRole("button", { name: "Unlike" }).click();
    await shows(page.getByRole("button", { name: "Like", exact: true }));
    await shows(page.getByRole("button", { name: "0 likes" }));

    await page.getByText("Share").click();
    const facebook = await page.getByRole("link", { name: "Facebook" }).getAttribute("href");
    expect(facebook).toContain(encodeURIComponent(`${server.config.publicUrl}${postPath}`));
    await shows(page.getByRole("link", { name: "Twitter" }));

    await page.getByRole("button", { name: "Comment", exact: true }).click();
    await shows(page.getByText("Comment must be at least 2 characters long"));
    await page.getByLabel("Your comment").fill("Great read, thanks!");
    await page.getByRole("button", { name: "Comment", exact: true }).click();
    await shows(page.locator(".comment").getByText("Great read, thanks!"));
    await expectAccessible(page);

    await page.getByRole("button", { name: "Edit comment" }).click();
    const edit = page.getByRole("dialog", { name: "Edit Comment" });
    await edit.getByLabel("Comment").fill("");
    await edit.getByRole("button", { name: "Edit Comment" }).click();
    await shows(edit.getByText("comment is required"));
    await edit.getByLabel("Comment").fill("Great read, edited.");
    await edit.getByRole("button", { name: "Edit Comment" }).click();
    await shows(page.locator(".comment").getByText("Great read, edited."));
    await shows(page.getByRole("status").getByText("Comment updated successfully"));

    await page.getByRole("button", { name: "Delete comment" }).click();
    await shows(page.getByText("Once deleted, you will not be able to recover this comment!"));
    await page.getByRole("dialog").getByRole("button", { name: "OK" }).click();
    await shows(page.getByText("No Comments Yet! Be the first one."));
    expectNoProblems(site);
    await site.context.close();
  });

  it("lets a reader comment without JavaScript", async () => {
    const site = await open({ javaScriptEnabled: false, signedIn: reader.token });
    await site.page.goto(postPath);
    await site.page.getByLabel("Your comment").fill("Posted with scripts off.");
    await site.page.getByRole("button", { name: "Comment", exact: true }).click();
    await shows(site.page.locator(".comment").getByText("Posted with scripts off."));
    await site.context.close();
  });

  it("gives the owner no edit icons on others' comments, and lets them edit, re-image and delete the post", async () => {
    const site = await open({ signedIn: owner.token });
    const { page } = site;
    await page.goto(postPath);
    await shows(page.locator(".comment").getByText("Posted with scripts off."));
    expect(await page.getByRole("button", { name: "Edit comment" }).count()).toBe(0);
    await expectAccessible(page);

    await (await ownerMenu(page)).getByRole("button", { name: "Edit Post" }).click();
    const dialog = page.getByRole("dialog", { name: "Update Post" });
    await dialog.getByLabel("Title").fill("");
    await dialog.getByRole("button", { name: "Update Post" }).click();
    await shows(dialog.getByText("Title is required"));
    await dialog.getByLabel("Title").fill("Sourdough at home");
    await dialog.getByLabel("Category").selectOption("Travel");
    await dialog.getByRole("button", { name: "Update Post" }).click();
    await shows(page.getByRole("status").getByText("Post Updated Successfully"));
    await shows(page.getByRole("heading", { name: "Sourdough at home", level: 1 }));

    const before = await page.locator(".post-image").getAttribute("src");
    await page
      .locator("#field-post-image")
      .setInputFiles({ name: "x.txt", mimeType: "text/plain", buffer: Buffer.from("nope") });
    await (await ownerMenu(page)).getByRole("button", { name: "Upload" }).click();
    await shows(page.getByText("Unsupported File Format"));
    await page
      .locator("#field-post-image")
      .setInputFiles({ name: "new.png", mimeType: "image/png", buffer: await pngImage(300, 200) });
    await (await ownerMenu(page)).getByRole("button", { name: "Upload" }).click();
    await shows(page.getByRole("status").getByText("New Post Image Uploaded Successfully"));
    await expect.poll(() => page.locator(".post-image").getAttribute("src")).not.toBe(before);

    await (await ownerMenu(page)).getByRole("button", { name: "Delete Post" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "OK" }).click();
    await page.waitForURL(`**/profile/${owner.id}`);
    await shows(page.getByRole("status").getByText("Post has been deleted successfully"));
    expect((await client(server.url).get(`/api/posts/${postId}`)).status).toBe(404);
    expectNoProblems(site);
    await site.context.close();
  });
});

describe("a post written in Markdown", () => {
  const LONG_LINE = `const line = "${"a very long line of code that no phone is wide enough for ".repeat(4)}";`;
  const MARKDOWN = [
    "## Ingredients",
    "",
    "What you need, and what you have:",
    "",
    "- [x] Flour",
    "- [ ] Starter",
    "",
    "| Step | Minutes |",
    "|:-----|--------:|",
    "| Knead | 10 |",
    "| Proof | 240 |",
    "",
    "## Method",
    "",
    "```js",
    "function bake(loaf) {",
    "  return loaf.hot;",
    "}",
    LONG_LINE,
    "```",
  ].join("\n");
  let markdownPath: string;

  beforeAll(async () => {
    const post = await addPost(client(server.url), owner, {
      title: "Bread in Markdown",
      category: "Food",
      description: MARKDOWN,
    });
    markdownPath = `/posts/details/${post._id}`;
  });

  it("shows headings with anchors, highlighted code, a table and a task list", async () => {
    const site = await open();
    const { page } = site;
    await page.goto(markdownPath);
    const method = page.getByRole("heading", { name: "Method", level: 2 });
    await shows(method);
    expect(await method.getAttribute("id")).toBe("section-method");
    const anchor = method.getByRole("link", { name: "Method" });
    expect(await anchor.getAttribute("href")).toBe("#section-method");
    await anchor.click();
    await page.waitForURL("**#section-method");

    const table = page.getByRole("table");
    await shows(table.getByRole("columnheader", { name: "Minutes" }));
    await shows(table.getByRole("cell", { name: "240" }));
    // Page code is written as text: these tests compile without the DOM's types.
    const align = await page.evaluate<string>(
      `getComputedStyle([...document.querySelectorAll("td")].find((td) => td.textContent === "240")).textAlign`,
    );
    expect(align).toBe("right");

    const flour = page.getByRole("checkbox", { name: "Flour" });
    expect(await flour.isChecked()).toBe(true);
    expect(await flour.isDisabled()).toBe(true);
    expect(await page.getByRole("checkbox", { name: "Starter" }).isChecked()).toBe(false);

    // Highlighted on the server: the keyword is its own span, coloured unlike the code around it.
    const code = page.locator("pre code");
    await shows(code.getByText("function", { exact: true }));
    const colours = await page.evaluate<{ code: string; keyword?: string }>(`(() => {
      const code = document.querySelector("pre code");
      const keyword = [...code.querySelectorAll("span")].find(
        (span) => span.textContent === "function",
      );
      return {
        code: getComputedStyle(code).color,
        keyword: keyword ? getComputedStyle(keyword).color : undefined,
      };
    })()`);
    expect(colours.keyword).toBeDefined();
    expect(colours.keyword).not.toBe(colours.code);

    await expectAccessible(page);
    expectNoProblems(site);
    await site.context.close();
  });

  it("scrolls a long line of code inside its block on a phone, not the page", async () => {
    const site = await open({ phone: true });
    const { page } = site;
    await page.goto(markdownPath);
    await shows(page.getByRole("heading", { name: "Method" }));
    const widths = await page.evaluate<{
      page: number;
      viewport: number;
      preScroll: number;
      preBox: number;
    }>(`(() => {
      const pre = document.querySelector(".post-body pre");
      return {
        page: document.documentElement.scrollWidth,
        viewport: document.documentElement.clientWidth,
        preScroll: pre ? pre.scrollWidth : 0,
        preBox: pre ? pre.clientWidth : 0,
      };
    })()`);
    expect(widths.page).toBeLessThanOrEqual(widths.viewport);
    expect(widths.preScroll).toBeGreaterThan(widths.preBox);
    expect(widths.preBox).toBeLessThan(widths.viewport);
    await expectAccessible(page);
    expectNoProblems(site);
    await site.context.close();
  });

  it("shows its excerpt and reading time on its card and as the page's description", async () => {
    const site = await open();
    const { page } = site;
    await page.goto("/posts");
    const card = page.getByRole("article").filter({ hasText: "Bread in Markdown" });
    await shows(card.getByText("1 min read"));
    // Blocks apart (issue 50): a heading and each list item end with a full stop.
    await shows(
      card.getByText(/^Ingredients\. What you need, and what you have: Flour\. Starter\./),
    );
    expect(await card.getByText("##").count()).toBe(0);
    await page.goto(markdownPath);
    const description = await page.locator('meta[name="description"]').getAttribute("content");
    expect(description).toMatch(/^Ingredients\. What you need/);
    expect(await page.locator('meta[property="og:description"]').getAttribute("content")).toBe(
      description,
    );
    expectNoProblems(site);
    await site.context.close();
  });

  it("gives its author the Markdown to edit, and shows the edit rendered", async () => {
    const site = await open({ signedIn: owner.token });
    const { page } = site;
    await page.goto(markdownPath);
    await (await ownerMenu(page)).getByRole("button", { name: "Edit Post" }).click();
    const dialog = page.getByRole("dialog", { name: "Update Post" });
    const body = dialog.getByLabel("Description");
    expect((await body.inputValue()).replace(/\r\n/g, "\n")).toBe(MARKDOWN);
    await body.fill("## Changed\n\nNow **bold**.");
    await dialog.getByRole("button", { name: "Update Post" }).click();
    await shows(page.getByRole("status").getByText("Post Updated Successfully"));
    await shows(page.getByRole("heading", { name: "Changed", level: 2 }));
    await shows(page.locator(".post-body strong").getByText("bold"));
    expectNoProblems(site);
    await site.context.close();
  });
});
