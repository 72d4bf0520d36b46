import { rm } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { client } from "../support/http.js";
import { filesOfImage } from "../support/images.js";
import { addComment, addPost } from "../support/post-fixtures.js";
import { expectAccessible, expectNoProblems, shows, signIn, openBrowserSite } from "./browser.js";
import { backgrounds, SCREENS } from "./measure.js";

const {
  server,
  api,
  open,
  users: { author, commenter },
} = await openBrowserSite({
  users: { author: { username: "keeper" }, commenter: { username: "sailor" } },
  categories: ["Travel"],
});

let postId: string;
let lostImagePostId: string | undefined;

/** A post whose stored image is gone (a lost disk, a half-restored backup), made once. */
async function postWithLostImage() {
  if (lostImagePostId) return lostImagePostId;
  const lost = await addPost(client(server.url), author, {
    title: "A lost picture",
    category: "Travel",
  });
  const uploads = path.join(server.dataDir, "uploads");
  for (const file of await filesOfImage(server, lost.image.url)) await rm(path.join(uploads, file));
  lostImagePostId = lost._id;
  return lost._id;
}

const TITLE = "Lighthouses of the north";

beforeAll(async () => {
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
});

describe("what readers expect from a post page", () => {
  for (const screen of SCREENS) {
    it(`names its cover, presents its author, counts its comments and links their authors (${screen.name})`, async () => {
      const site = await open({ signedIn: author.token });
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
    const site = await open();
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

  for (const screen of SCREENS) {
    it(`keeps a missing cover's frame, tinted and titled (${screen.name})`, async () => {
      const lostId = await postWithLostImage();
      const site = await open();
      const { page } = site;
      await page.setViewportSize(screen.size);
      for (const path of ["/", `/posts/details/${lostId}`]) {
        await page.goto(path);
        // The card's picture sits in a link hidden from screen readers (its title link is not).
        const cover = page.locator('img[alt="A lost picture"]').first();
        await expect
          .poll(() =>
            cover.evaluate((image) => (image as unknown as { complete: boolean }).complete),
          )
          .toBe(true);
        expect(
          await cover.evaluate(
            (image) => (image as unknown as { naturalWidth: number }).naturalWidth,
          ),
        ).toBe(0);
        const box = await cover.boundingBox();
        // Its 16:9 frame stays, so the page does not jump and the card keeps its shape.
        expect(Math.abs((box?.width ?? 0) / (box?.height ?? 1) - 16 / 9)).toBeLessThan(0.05);
        const [background] = await backgrounds(cover);
        expect(background).not.toBe("rgba(0, 0, 0, 0)");
      }
      // The missing files answer 404, as they should; nothing else may go wrong.
      expect(site.problems.filter((problem) => !problem.startsWith("404 for GET"))).toEqual([]);
      await site.context.close();
    });
  }
});
