import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildUser, signInAdmin, type TestUser } from "../support/factories.js";
import { client } from "../support/http.js";
import { addCategory, addComment, addPost } from "../support/post-fixtures.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import {
  expectAccessible,
  expectNoProblems,
  launchBrowser,
  openSite,
  shows,
  signIn,
} from "./browser.js";
import { SCREENS } from "./measure.js";

let server: TestServer;
let browser: Browser;
let author: TestUser;
let commenter: TestUser;
let postId: string;

const TITLE = "Lighthouses of the north";

beforeAll(async () => {
  server = await startTestServer();
  const api = client(server.url);
  const admin = await signInAdmin(server, api);
  await addCategory(api, admin, "Travel");
  author = await buildUser(server, api, { username: "keeper" });
  commenter = await buildUser(server, api, { username: "sailor" });
  postId = (await addPost(api, author, { title: TITLE, category: "Travel" }))._id;
  await addComment(api, commenter, postId, "Seen from the ferry.");
  await addComment(api, author, postId, "A fine view.");
  const profile = await api.put(
    `/api/users/profile/${author.id}`,
    {
      username: author.username,
      email: author.email,
      bio: "Keeps the light on the point.",
      socialMedia: [{ name: "github", url: "https://github.com/keeper" }],
    },
    { token: author.token },
  );
  expect(profile.status, profile.text).toBe(200);
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser.close();
  await server.close();
});

describe("what readers expect from a post page", () => {
  for (const screen of SCREENS) {
    it(`names its cover, presents its author, counts its comments and links their authors (${screen.name})`, async () => {
      const site = await openSite(browser, server.config.publicUrl);
      await signIn(site, server.config.publicUrl, author.token);
      const { page } = site;
      await page.setViewportSize(screen.size);
      await page.goto("/");
      expect(
        await page
          .locator("article")
          .filter({ hasText: TITLE })
          .locator("img")
          .first()
          .getAttribute("alt"),
      ).toBe(TITLE);
      await page.goto(`/posts/details/${postId}`);
      await shows(page.getByRole("img", { name: TITLE }));
      await shows(page.getByRole("heading", { name: "2 Comments" }));
      const box = page.getByRole("complementary", { name: "About the author" });
      await shows(box.getByText("Keeps the light on the point."));
      await shows(box.getByRole("link", { name: "github" }));
      expect(await box.getByRole("link", { name: "keeper" }).getAttribute("href")).toBe(
        `/profile/${author.id}`,
      );
      await expectAccessible(page);
      await page.getByRole("listitem").getByRole("link", { name: "sailor" }).click();
      await page.waitForURL(`**/profile/${commenter.id}`);
      await shows(page.getByRole("heading", { name: "sailor", level: 1 }));
      expectNoProblems(site);
      await site.context.close();
    });
  }

  it("copies its link from the share menu", async () => {
    const site = await openSite(browser, server.config.publicUrl);
    await site.context.grantPermissions(["clipboard-read", "clipboard-write"]);
    await signIn(site, server.config.publicUrl, commenter.token);
    const { page } = site;
    await page.goto(`/posts/details/${postId}`);
    await page.getByText("Share", { exact: true }).click();
    await page.getByRole("button", { name: "Copy link" }).click();
    await shows(page.getByRole("status").getByText("Link copied"));
    const copied = await page.evaluate(() =>
      (
        globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }
      ).navigator.clipboard.readText(),
    );
    expect(copied).toBe(`${server.config.publicUrl}/posts/details/${postId}`);
    expectNoProblems(site);
    await site.context.close();
  });
});
