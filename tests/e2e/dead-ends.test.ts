import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { createUser } from "../../core/auth/auth-service.js";
import { PASSWORD } from "../support/factories.js";
import { client } from "../support/http.js";
import { mailedLink } from "../support/mail.js";
import { addCategory, addComment, addPost } from "../support/post-fixtures.js";
import { expectAccessible, expectNoProblems, shows, openBrowserSite } from "./browser.js";
import { SCREENS } from "./measure.js";

const {
  server,
  api,
  admin,
  open,
  users: { author, member },
} = await openBrowserSite({
  users: { author: { username: "wanderer" }, member: { username: "newcomer" } },
  categories: ["Travel"],
});

let postId: string;

const NOBODY = "00000000-0000-4000-8000-000000000000";

beforeAll(async () => {
  postId = (await addPost(api, author, { title: "Night trains", category: "Travel" }))._id;
  await addComment(api, member, postId, "Sleeper to Vienna, every time.");
});

async function logIn(page: Page, user: { email: string; password: string }) {
  await page.getByLabel("Email").fill(user.email);
  await page.getByLabel("Password").fill(user.password);
  await page.getByRole("button", { name: "Login" }).click();
}

describe("a dead link", () => {
  for (const javaScriptEnabled of [true, false]) {
    it(`to reset a password says so and leads to a new one (JavaScript ${javaScriptEnabled ? "on" : "off"})`, async () => {
      const site = await open({ javaScriptEnabled });
      const { page } = site;
      await page.goto(`/reset-password/${NOBODY}/${"x".repeat(43)}`);
      await shows(page.getByRole("alert").getByText("This link is invalid or has expired."));
      expect(await page.getByLabel("New Password").count()).toBe(0);
      // axe runs as a script: checked with JavaScript on, on the same markup.
      if (javaScriptEnabled) await expectAccessible(page);
      await page.getByRole("link", { name: "Forgot Password page" }).click();
      await page.waitForURL("**/forgot-password");
      await shows(page.getByRole("heading", { name: "Forgot Password" }));
      expectNoProblems(site);
      await site.context.close();
    });
  }

  it("to verify an address says how to get a new one, and that way works", async () => {
    const email = "late-reader@example.com";
    await createUser(server.app.deps, {
      username: "latereader",
      email,
      password: PASSWORD,
      isAdmin: false,
      isVerified: false,
    });
    const site = await open();
    const { page } = site;
    await page.goto(`/api/auth/${NOBODY}/verify/${"x".repeat(43)}`);
    await shows(page.getByRole("heading", { name: "Invalid Link" }));
    await shows(page.getByText("To get a new link, log in with your email and password"));
    await expectAccessible(page);
    await page.getByRole("link", { name: "Go To Login" }).click();
    await page.waitForURL("**/login");
    await logIn(page, { email, password: PASSWORD });
    // SPEC's words once (the toast), the form the address the link went to (issue 50).
    const notice = page.getByText("We sent you an email, please verify your email address");
    await shows(notice);
    await expect.poll(() => notice.filter({ visible: true }).count()).toBe(1);
    await shows(page.getByText(`A new link is on its way to ${email}`));
    await page.goto((await mailedLink(server.dataDir, email, "verify")).pathname);
    await shows(
      page.getByRole("heading", { name: "Your email address has been successfully verified" }),
    );
    expectNoProblems(site);
    await site.context.close();
  });
});

describe("an author's name, clicked by a visitor", () => {
  for (const screen of SCREENS) {
    it(`leads to the public author page; a profile says why it goes home (${screen.name})`, async () => {
      const site = await open();
      const { page } = site;
      await page.setViewportSize(screen.size);
      await page.goto(`/posts/details/${postId}`);
      // DESIGN.md 11: bylines lead visitors to the author's public page.
      await page.getByRole("link", { name: "wanderer" }).first().click();
      await page.waitForURL((url) => url.pathname === "/@wanderer");
      await shows(page.getByRole("heading", { name: "wanderer", level: 1 }));
      // The profile (SPEC.md) stays the members': a visitor is sent home and told why.
      await page.goto(`/profile/${author.id}`);
      await page.waitForURL((url) => url.pathname === "/");
      await shows(page.getByRole("status").getByText("Log in to see author profiles."));
      await expectAccessible(page);
      await page.getByRole("link", { name: "Log in and go back to the profile" }).click();
      await page.waitForURL((url) => url.pathname === "/login");
      await logIn(page, member);
      await page.waitForURL(`**/profile/${author.id}`);
      await shows(page.getByRole("heading", { name: "wanderer", level: 1 }));
      expectNoProblems(site);
      await site.context.close();
    });
  }

  it("does the same without JavaScript, and goes nowhere but this site", async () => {
    const site = await open({ javaScriptEnabled: false });
    const { page } = site;
    // A commenter's name leads a visitor to the public page too.
    await page.goto(`/posts/details/${postId}`);
    await page.getByRole("link", { name: "newcomer" }).click();
    await page.waitForURL((url) => url.pathname === "/@newcomer");
    await page.goto(`/profile/${author.id}`);
    expect(new URL(page.url()).pathname).toBe("/");
    await shows(page.getByText("Log in to see author profiles."));
    await page.getByRole("link", { name: "Log in and go back to the profile" }).click();
    await logIn(page, member);
    await page.waitForURL(`**/profile/${author.id}`);
    await site.context.close();

    // A return address off this site is ignored: the login goes home.
    const other = await open({ javaScriptEnabled: false });
    for (const next of ["//evil.example/", "/\\evil.example/", "https://evil.example/"]) {
      await other.page.goto(`/login?next=${encodeURIComponent(next)}`);
      await logIn(other.page, member);
      await other.page.waitForURL((url) => url.pathname === "/");
      expect(new URL(other.page.url()).host).toBe(new URL(server.config.publicUrl).host);
      await other.context.clearCookies();
    }
    await other.context.close();
  });
});

describe("a member looking for where to write", () => {
  for (const screen of SCREENS) {
    it(`finds "Write a post" in the account menu and on their profile (${screen.name})`, async () => {
      const site = await open({ signedIn: member.token });
      const { page } = site;
      await page.setViewportSize(screen.size);
      await page.goto("/");
      // The header's Create link stays the admin's (SPEC.md 2).
      expect(await page.getByRole("link", { name: "Create", exact: true }).count()).toBe(0);
      await page.getByText(member.username, { exact: true }).first().click();
      await page.getByRole("link", { name: "Write a post" }).click();
      await page.waitForURL("**/posts/create-post");
      await shows(page.getByRole("heading", { name: "Create New Post" }));

      await page.goto(`/profile/${member.id}`);
      await page.getByRole("link", { name: "Write a post" }).click();
      await page.waitForURL("**/posts/create-post");
      await page.goto(`/profile/${author.id}`);
      await shows(page.getByRole("heading", { name: "wanderer", level: 1 }));
      expect(await page.getByRole("main").getByRole("link", { name: "Write a post" }).count()).toBe(
        0,
      );
      expectNoProblems(site);
      await site.context.close();
    });
  }

  it("is told why the category list is empty, and the admin where to fill it", async () => {
    const api = client(server.url);
    const categories = await api.get<{ _id: string }[]>("/api/categories");
    for (const { _id } of categories.body) {
      const gone = await api.delete(`/api/categories/${_id}`, { token: admin.token });
      expect(gone.status, gone.text).toBe(200);
    }
    try {
      const site = await open({ signedIn: member.token });
      const { page } = site;
      await page.goto("/posts/create-post");
      const category = page.getByLabel("Category");
      await shows(category);
      expect(await category.getAttribute("aria-describedby")).toBe("no-categories");
      await shows(page.getByText("There are no categories yet, and every post needs one."));
      await shows(page.getByText("An administrator has to add the first one"));
      await expectAccessible(page);
      expectNoProblems(site);
      await site.context.close();

      const adminSite = await open({ signedIn: admin.token });
      await adminSite.page.goto("/posts/create-post");
      await adminSite.page.getByRole("link", { name: "categories table" }).click();
      await adminSite.page.waitForURL("**/admin-dashboard/categories-table");
      expectNoProblems(adminSite);
      await adminSite.context.close();
    } finally {
      await addCategory(api, admin, "Travel");
    }
    // With a category, the form has no such note.
    const site = await open({ signedIn: member.token });
    await site.page.goto("/posts/create-post");
    expect(await site.page.getByRole("option", { name: "Travel" }).count()).toBe(1);
    expect(await site.page.getByText("There are no categories yet").count()).toBe(0);
    await site.context.close();
  });
});
