import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildUser, signInAdmin, type TestUser } from "../support/factories.js";
import { client } from "../support/http.js";
import { addCategory, addComment, addPost } from "../support/post-fixtures.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { expectNoProblems, launchBrowser, openSite, shows, signIn } from "./browser.js";
import { overflowOf, overflowsOf, SCREENS } from "./measure.js";

let server: TestServer;
let browser: Browser;
let admin: TestUser;
let writer: TestUser;
let postId: string;
let categoryTitle: string;

/** Unbroken runs of letters, as a pasted link or a joke title makes them. */
const longWord = (length: number) => "Pneumonoultramicroscopic".repeat(20).slice(0, length);
const LONG_LINK = `https://example.com/${"very-long-path-segment".repeat(12)}`;

beforeAll(async () => {
  server = await startTestServer();
  const api = client(server.url);
  admin = await signInAdmin(server, api);
  writer = await buildUser(server, api, { username: "Wordsworthian12" });
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
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser.close();
  await server.close();
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
      const site = await openSite(browser, server.config.publicUrl);
      await signIn(site, server.config.publicUrl, admin.token);
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
