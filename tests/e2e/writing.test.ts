import { describe, expect, it } from "vitest";
import { buildUser } from "../support/factories.js";
import { client } from "../support/http.js";
import { pngImage } from "../support/images.js";
import { addPost } from "../support/post-fixtures.js";
import { expectAccessible, expectNoProblems, shows, signIn, openBrowserSite } from "./browser.js";

const {
  server,
  open,
  users: { author },
} = await openBrowserSite({ users: ["author"], categories: ["Travel"] });

describe("creating a post", () => {
  it("sends visitors home", async () => {
    const site = await open();
    await site.page.goto("/posts/create-post");
    expect(new URL(site.page.url()).pathname).toBe("/");
    await site.context.close();
  });

  it("checks every field, then publishes and goes home", async () => {
    const site = await open({ signedIn: author.token });
    const { page } = site;
    await page.goto("/posts/create-post");
    await expectAccessible(page);

    await page.getByRole("button", { name: "Publish" }).click();
    for (const message of [
      "image is required",
      "Post title is required",
      "Post category is required",
      "Post description is required",
    ]) {
      await shows(page.getByText(message, { exact: true }));
    }

    await page.getByLabel("Post Image").setInputFiles({
      name: "notes.txt",
      mimeType: "text/plain",
      buffer: Buffer.from("not an image"),
    });
    await page.getByRole("button", { name: "Publish" }).click();
    await shows(page.getByText("Unsupported File Format", { exact: true }));

    await page.getByLabel("Post Title").fill("Crossing the Alps by train");
    await page.getByLabel("Category").selectOption("Travel");
    await page
      .getByLabel("Post Description")
      .fill("Six trains, two days, one <b>very</b> long tunnel.");
    await page.getByLabel("Post Image").setInputFiles({
      name: "alps.png",
      mimeType: "image/png",
      buffer: await pngImage(320, 200),
    });
    await shows(page.getByRole("img", { name: "Preview of the chosen image" }));
    await page.getByRole("button", { name: "Publish" }).click();
    await shows(page.getByRole("status").getByText("Post created successfully"));
    await page.waitForURL((url) => url.pathname === "/", { timeout: 10_000 });
    await shows(page.getByRole("link", { name: "Crossing the Alps by train", exact: true }));

    await page.getByRole("link", { name: "Crossing the Alps by train", exact: true }).click();
    await shows(page.getByText("Six trains, two days, one <b>very</b> long tunnel."));
    expectNoProblems(site);
    await site.context.close();
  });

  it("publishes a body written in Markdown, rendered", async () => {
    const site = await open({ signedIn: author.token });
    const { page } = site;
    await page.goto("/posts/create-post");
    await page.getByLabel("Post Title").fill("Packing list");
    await page.getByLabel("Category").selectOption("Travel");
    await page
      .getByLabel("Post Description")
      .fill(
        "## What to bring\n\n- [x] Passport\n- [ ] **Rain** coat\n\nFirst line\nsecond line\n\n" +
          "```sh\nzip -r trip.zip photos/\n```",
      );
    await page
      .getByLabel("Post Image")
      .setInputFiles({ name: "a.png", mimeType: "image/png", buffer: await pngImage() });
    await page.getByLabel("Alt text for the image").fill("A suitcase open on a bed");
    await page.getByRole("button", { name: "Publish" }).click();
    await shows(page.getByRole("status").getByText("Post created successfully"));
    await page.waitForURL((url) => url.pathname === "/", { timeout: 10_000 });
    // The writer's description of the cover, on the card (whose image link is hidden from
    // screen readers, the title link beside it says the same) and the page (the title otherwise).
    await shows(page.locator('.post-card img[alt="A suitcase open on a bed"]'));
    await page.getByRole("link", { name: "Packing list", exact: true }).click();
    await shows(page.getByRole("img", { name: "A suitcase open on a bed" }));
    await shows(page.getByRole("heading", { name: "What to bring", level: 2 }));
    expect(await page.getByRole("checkbox", { name: "Passport" }).isChecked()).toBe(true);
    await shows(page.locator(".post-body strong").getByText("Rain"));
    // A line break in the text stays a line break.
    expect(await page.locator(".post-body p br").count()).toBe(1);
    // A code block has a Copy button (a script adds it; without one the block is as written).
    await site.context.grantPermissions(["clipboard-read", "clipboard-write"]);
    await page.getByRole("button", { name: "Copy the code" }).click();
    await shows(page.getByRole("button", { name: "Copy the code" }).getByText("Copied"));
    const clipboard = () =>
      (
        globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }
      ).navigator.clipboard.readText();
    expect(await page.evaluate(clipboard)).toContain("zip -r trip.zip photos/");
    expectNoProblems(site);
    await site.context.close();
  });

  it("tags a post, with a summary for search engines, and finds it on its tag's page (phone)", async () => {
    const site = await open({ phone: true, signedIn: author.token });
    const { page } = site;
    await page.goto("/posts/create-post");
    await page.getByLabel("Post Title").fill("Sleeper trains of Europe");
    await page.getByLabel("Category").selectOption("Travel");
    await page.getByLabel("Post Description").fill("Falling asleep in one country.");
    await page
      .getByLabel("Post Image")
      .setInputFiles({ name: "a.png", mimeType: "image/png", buffer: await pngImage() });
    await page.getByLabel(/^Tags/).fill("Night-Trains, alps, night trains");
    await page.getByRole("button", { name: "Publish" }).click();
    // A tag with a space is refused before anything is sent, under its field.
    await shows(page.getByText(/^Each tag must be 2 to 30 letters or digits/));
    await page.getByLabel(/^Tags/).fill("Night-Trains, alps");
    await page.getByText("Search engines and sharing").click();
    await page.getByLabel(/^Meta description/).fill("Six sleeper trains, tried and rated.");
    await page.getByRole("button", { name: "Publish" }).click();
    await shows(page.getByRole("status").getByText("Post created successfully"));
    await page.waitForURL((url) => url.pathname === "/", { timeout: 10_000 });

    // The card and the post show the tags, lowercase; the head carries the summary.
    const card = page.locator(".post-card", { hasText: "Sleeper trains of Europe" });
    await shows(card.getByRole("link", { name: "#night-trains" }));
    await page.getByRole("link", { name: "Sleeper trains of Europe", exact: true }).click();
    await page.waitForURL((url) => url.pathname.startsWith("/posts/details/"));
    // The head follows the client's navigation once the post's page is rendered.
    await expect
      .poll(() => page.locator('meta[name="description"]').getAttribute("content"))
      .toBe("Six sleeper trains, tried and rated.");
    const tags = page.getByRole("list", { name: "Tags" });
    await shows(tags.getByRole("link", { name: "#alps" }));
    await tags.getByRole("link", { name: "#night-trains" }).click();
    await page.waitForURL((url) => url.pathname === "/tags/night-trains");
    await shows(page.getByRole("heading", { name: "#night-trains", level: 1 }));
    await shows(page.getByRole("link", { name: "Sleeper trains of Europe", exact: true }));
    await expectAccessible(page);
    // Any spelling of a tag is its page; a tag nobody uses is none.
    await page.goto("/tags/Night-Trains");
    expect(new URL(page.url()).pathname).toBe("/tags/night-trains");
    expect((await page.goto("/tags/unused-tag"))?.status()).toBe(404);
    expectNoProblems(site);
    await site.context.close();
  });

  it("puts a post's summary, canonical address and tags in its page, escaped", async () => {
    const created = await addPost(client(server.url), author, {
      title: "Head fields",
      category: "Travel",
      metaDescription: "What the search result says <here>.",
      canonicalUrl: "http://example.org/original?a=1&b=2",
      tags: "headings",
    });
    const html = await (await fetch(`${server.url}/posts/details/${created._id}`)).text();
    expect(html).toContain(
      '<meta name="description" content="What the search result says &lt;here&gt;."',
    );
    expect(html).toContain(
      '<meta property="og:description" content="What the search result says &lt;here&gt;."',
    );
    expect(html).toContain('<link rel="canonical" href="http://example.org/original?a=1&amp;b=2"');
    expect(html).toContain(`href="/tags/headings"`);
  });

  it("works without JavaScript", async () => {
    const site = await open({ javaScriptEnabled: false, signedIn: author.token });
    const { page } = site;
    await page.goto("/posts/create-post");
    await page.getByLabel("Post Title").fill("Written with scripts off");
    await page.getByLabel("Category").selectOption("Travel");
    await page.getByLabel("Post Description").fill("Plain forms still work.");
    await page
      .getByLabel("Post Image")
      .setInputFiles({ name: "a.png", mimeType: "image/png", buffer: await pngImage() });
    await page.getByRole("button", { name: "Publish" }).click();
    await shows(page.getByText("Post created successfully"));
    const titles = (await client(server.url).get<{ title: string }[]>("/api/posts")).body.map(
      (p) => p.title,
    );
    expect(titles).toContain("Written with scripts off");
    await site.context.close();
  });
});

describe("the full editor", () => {
  it("edits every field of a published post, shows what an edit changed, and restores it", async () => {
    const post = await addPost(client(server.url), author, {
      title: "Night ferry to Bergen",
      category: "Travel",
      description: "We sailed at nine.\nThe sea was calm.",
      tags: "ferries",
    });
    const site = await open({ signedIn: author.token });
    const { page } = site;
    await page.goto(`/posts/details/${post._id}`);
    // One Edit on the author's own page: the full editor (issue 50).
    await page.locator(".owner-tools").getByRole("link", { name: "Edit", exact: true }).click();
    await page.waitForURL((url) => url.pathname === `/posts/edit/${post._id}`);
    await shows(page.getByRole("heading", { name: "Edit post", level: 1 }));
    await expectAccessible(page);
    expect(await page.getByLabel("Title").inputValue()).toBe("Night ferry to Bergen");
    expect(await page.getByLabel(/^Tags/).inputValue()).toBe("ferries");
    await shows(page.getByText(/None yet/));

    await page.getByLabel("Title").fill("Night ferry to Bergen, rough");
    await page
      .getByLabel("Description", { exact: true })
      .fill("We sailed at nine.\nThe sea was rough.");
    await page.getByLabel(/^Tags/).fill("ferries, norway");
    await page.getByRole("button", { name: "Update post" }).click();
    await shows(page.getByRole("status").getByText("Post updated."));
    expect(await page.getByLabel("Title").inputValue()).toBe("Night ferry to Bergen, rough");

    // The version the edit replaced, against the post now, then back.
    await page
      .getByRole("list")
      .filter({ hasText: "Night ferry to Bergen" })
      .getByRole("link")
      .click();
    const revision = page.locator("#revision");
    await shows(revision.locator("del").getByText("The sea was calm."));
    await shows(revision.locator("ins").getByText("The sea was rough."));
    await shows(revision.locator("ins").getByText("norway"));
    await revision.getByRole("button", { name: "Restore this version" }).click();
    await shows(page.getByText("Revision restored"));
    await expect.poll(() => page.getByLabel("Title").inputValue()).toBe("Night ferry to Bergen");
    const api = client(server.url);
    const now = (await api.get<{ title: string; tags: string[] }>(`/api/posts/${post._id}`)).body;
    expect(now.title).toBe("Night ferry to Bergen");
    expect(now.tags).toEqual(["ferries"]);
    // Nobody else has an editor for it.
    const other = await open();
    const stranger = await buildUser(server, api);
    await signIn(other, server.config.publicUrl, stranger.token);
    expect((await other.page.goto(`/posts/edit/${post._id}`))?.status()).toBe(404);
    await other.context.close();
    expectNoProblems(site);
    await site.context.close();
  });
});
