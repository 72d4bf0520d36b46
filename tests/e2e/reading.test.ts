import { beforeAll, describe, expect, it } from "vitest";
import { seedDemo } from "../../bench/seed.js";
import { client } from "../support/http.js";
import { expectAccessible, expectNoProblems, shows, openBrowserSite } from "./browser.js";

const { server, open } = await openBrowserSite({});

interface Listed {
  _id: string;
  title: string;
  category: string;
  user: { _id: string; username: string };
}

let posts: Listed[];

beforeAll(async () => {
  await seedDemo(server.app.deps.db, server.app.deps.storage, {
    users: 4,
    categories: 3,
    posts: 14,
    likes: 10,
    comments: 8,
  });
  posts = (await client(server.url).get<Listed[]>("/api/posts")).body;
});

describe("a visitor reading the site", () => {
  it("browses home, the posts pages, a post, its category and an author", async () => {
    const site = await open();
    const { page } = site;

    await page.goto("/");
    await shows(page.getByRole("heading", { name: "Recent Posts" }));
    expect(await page.locator(".post-card").count()).toBe(6);
    await shows(page.getByRole("link", { name: "Login" }));
    await expectAccessible(page);

    await page.getByRole("link", { name: "Load More" }).click();
    await page.waitForURL("**/posts");
    await shows(page.getByRole("heading", { name: "Posts", level: 1 }));
    const previous = page.getByRole("link", { name: "Previous page" });
    expect(await previous.getAttribute("aria-disabled")).toBe("true");
    expect(await previous.getAttribute("href")).toBeNull();
    await expectAccessible(page);

    await page.getByRole("link", { name: "Page 2" }).click();
    await page.waitForURL("**/posts?page=2");
    await shows(page.locator('a[aria-label="Previous page"][href="/posts"]'));
    const second = posts[6];
    await shows(page.getByRole("link", { name: second?.title ?? "", exact: true }));

    await page.getByRole("link", { name: "Page 3" }).click();
    await page.waitForURL("**/posts?page=3");
    await shows(page.locator('.pager-item[aria-current="page"]', { hasText: "3" }));
    expect(await page.locator(".post-card").count()).toBe(2);
    expect(await page.getByRole("link", { name: "Next page" }).getAttribute("aria-disabled")).toBe(
      "true",
    );

    const post = posts[0];
    if (!post) throw new Error("no posts seeded");
    await page.goto("/");
    await page.getByRole("link", { name: post.title, exact: true }).click();
    await page.waitForURL(`**/posts/details/${post._id}`);
    await shows(page.getByRole("heading", { name: post.title, level: 1 }));
    const breadcrumb = page.getByRole("navigation", { name: "Breadcrumb" });
    await shows(breadcrumb.getByRole("link", { name: "Home" }));
    await expectAccessible(page);

    await breadcrumb.getByRole("link", { name: post.category }).click();
    await page.waitForURL(`**/posts/categories/${encodeURIComponent(post.category)}`);
    await shows(page.getByRole("heading", { name: post.category, level: 1 }));
    await expectAccessible(page);

    // A visitor's byline leads to the author's public page (DESIGN.md 11).
    await page.getByRole("link", { name: post.user.username }).first().click();
    await page.waitForURL((url) => url.pathname === `/@${post.user.username}`);
    await shows(page.getByRole("heading", { name: post.user.username, level: 1 }));
    await expectAccessible(page);
    expectNoProblems(site);
    await site.context.close();
  });

  it("opens the categories dropdown on hover and on keyboard focus", async () => {
    const site = await open();
    const { page } = site;
    await page.goto("/");
    const categories = (await client(server.url).get<{ title: string }[]>("/api/categories")).body;
    const first = page
      .getByRole("navigation", { name: "Main" })
      .getByRole("link", { name: categories[0]?.title ?? "" });
    expect(await first.isVisible()).toBe(false);
    await page.getByRole("button", { name: "Categories" }).hover();
    expect(await first.isVisible()).toBe(true);
    await page.mouse.move(0, 800);
    await page.getByRole("button", { name: "Categories" }).focus();
    expect(await first.isVisible()).toBe(true);
    expectNoProblems(site);
    await site.context.close();
  });

  it("shows the 404 page with a 404 status for an unknown path and an unknown post", async () => {
    const site = await open();
    const { page } = site;
    for (const path of ["/no/such/page", "/posts/details/00000000-0000-4000-8000-000000000000"]) {
      const response = await page.goto(path);
      expect(response?.status()).toBe(404);
      await shows(page.getByRole("heading", { name: "Page Not Found" }));
      await expectAccessible(page);
    }
    await page.getByRole("link", { name: "Go to home page" }).click();
    await page.waitForURL((url) => url.pathname === "/");
    await site.context.close();
  });

  it("renders the reading pages with JavaScript turned off", async () => {
    const site = await open({ javaScriptEnabled: false });
    const { page } = site;
    await page.goto("/posts?page=2");
    expect(await page.locator(".post-card").count()).toBe(6);
    await page.getByRole("link", { name: "Page 3" }).click();
    await page.waitForURL("**/posts?page=3");
    const post = posts[0];
    await page.goto(`/posts/details/${post?._id ?? ""}`);
    await shows(page.getByRole("heading", { name: post?.title ?? "", level: 1 }));
    await site.context.close();
  });

  it("gives every page a title, a description and a canonical link, and post pages share cards", async () => {
    const post = posts[0];
    const html = await (await fetch(`${server.url}/posts/details/${post?._id ?? ""}`)).text();
    expect(html).toContain(
      `<link rel="canonical" href="${server.config.publicUrl}/posts/details/${post?._id ?? ""}"/>`,
    );
    expect(html).toMatch(/<meta name="description" content="[^"]+"/);
    expect(html).toMatch(
      new RegExp(`<meta property="og:image" content="${server.config.publicUrl}/uploads/images/`),
    );
    expect(html).toContain('<meta name="twitter:card" content="summary_large_image"/>');
  });
});
