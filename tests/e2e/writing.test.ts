import { describe, expect, it } from "vitest";
import { buildUser } from "../support/factories.js";
import { client } from "../support/http.js";
import { pngImage } from "../support/images.js";
import { addPost } from "../support/post-fixtures.js";
import { seriesCalls } from "../support/series-fixtures.js";
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

describe("series (issue 51, decision 032)", () => {
  it("a writer makes a series of three on a phone and orders it, without JavaScript too; a visitor walks it with Next", async () => {
    const api = client(server.url);
    const part = (title: string, status?: "draft") =>
      addPost(api, author, { title, category: "Travel", description: `About ${title}.`, status });
    const first = await part("Rails of Wales: Cardiff");
    const second = await part("Rails of Wales: Brecon");
    const third = await part("Rails of Wales: Snowdon");
    const draft = await part("Rails of Wales: the unfinished line", "draft");

    const site = await open({ phone: true, signedIn: author.token });
    const { page } = site;
    await page.goto("/");
    await page.getByRole("button", { name: "Open menu" }).click();
    await page
      .getByRole("navigation", { name: "Side menu" })
      .getByRole("link", { name: "Series" })
      .click();
    await page.waitForURL("**/series");
    await shows(page.getByText("No series yet."));
    // Checked in the browser first: a series needs its title.
    await page.getByRole("button", { name: "Create series" }).click();
    await shows(page.getByText("Series title is required"));
    await page.getByLabel("Title").fill("Rails of Wales");
    await page.getByLabel("Description (optional)").fill("Three lines, south to north.");
    await page.getByRole("button", { name: "Create series" }).click();
    await page.waitForURL((url) => /^\/series\/[^/]+$/.test(url.pathname));
    await shows(page.getByRole("heading", { level: 1, name: "Rails of Wales" }));
    await shows(page.getByText("No posts in this series yet."));
    const seriesUrl = new URL(page.url()).pathname;

    // Added one by one at the end: Snowdon, Cardiff, Brecon.
    const manage = page.getByRole("region", { name: "Manage this series" });
    for (const post of [third, first, second]) {
      await manage.getByLabel("Add a post").selectOption(post._id);
      await manage.getByRole("button", { name: "Save" }).click();
      await shows(manage.getByRole("button", { name: `Remove “${post.title}”` }));
    }
    await expectAccessible(page);
    // The draft joins from the full editor's Series field, at the end.
    await page.goto(`/posts/edit/${draft._id}`);
    await page.getByLabel("Series (optional)").selectOption({ label: "Rails of Wales" });
    await page.getByRole("button", { name: "Save draft" }).click();
    await shows(page.getByRole("status").getByText("Draft saved."));
    await page.getByRole("link", { name: "Manage series" }).click();
    await page.waitForURL("**/series");
    await page.getByRole("link", { name: "Rails of Wales" }).click();
    await page.waitForURL(`**${seriesUrl}`);
    await shows(page.locator(".series-item").getByText("Draft", { exact: true }));

    // Ordered with Up and Down, without JavaScript: Cardiff up, Snowdon down, the draft up.
    const plain = await open({ phone: true, javaScriptEnabled: false, signedIn: author.token });
    await plain.page.goto(seriesUrl);
    const form = plain.page.getByRole("region", { name: "Manage this series" });
    /** The rows' titles, in order, without their numbers and state. */
    const order = async () =>
      (await form.locator(".series-row-title").allInnerTexts()).map((row) =>
        row.replace(/^\d+\. /, "").replace(/\s+Draft$/, ""),
      );
    for (const [button, after] of [
      [`Move up “${first.title}”`, [first, third, second, draft]],
      [`Move down “${third.title}”`, [first, second, third, draft]],
      [`Move up “${draft.title}”`, [first, second, draft, third]],
    ] as const) {
      await form.getByRole("button", { name: button }).click();
      await expect.poll(order).toEqual(after.map((post) => post.title));
    }
    // Its writer sees the draft's would-be place on its page.
    await page.goto(`/posts/details/${draft._id}`);
    await shows(page.getByText("Part 3 of 4 in"));

    // A visitor on a phone: part 1 of 3, then Next to the end; the draft is nowhere.
    const visitor = await open({ phone: true });
    const reader = visitor.page;
    await reader.goto(`/posts/details/${first._id}`);
    const box = reader.getByRole("navigation", { name: /^Part \d of \d in/ });
    await shows(box.getByText("Part 1 of 3 in"));
    await shows(box.getByRole("link", { name: "Rails of Wales", exact: true }));
    expect(await box.getByRole("listitem").allInnerTexts()).toEqual([
      first.title,
      second.title,
      third.title,
    ]);
    expect(await box.locator('[aria-current="page"]').innerText()).toBe(first.title);
    await expectAccessible(reader);
    for (const [at, post] of [
      [2, second],
      [3, third],
    ] as const) {
      await box.getByRole("link", { name: `Next: ${post.title}` }).click();
      await reader.waitForURL(`**/posts/details/${post._id}`);
      await shows(box.getByText(`Part ${String(at)} of 3 in`));
      await shows(reader.getByRole("heading", { level: 1, name: post.title }));
    }
    expect(await box.getByRole("link", { name: /^Next:/ }).count()).toBe(0);
    await shows(box.getByRole("link", { name: `Previous: ${second.title}` }));
    expect(await reader.getByText(draft.title).count()).toBe(0);
    // The series' page: the three parts in order, numbered, with its feeds.
    await box.getByRole("link", { name: "Rails of Wales", exact: true }).click();
    await reader.waitForURL(`**${seriesUrl}`);
    await shows(reader.getByRole("heading", { level: 1, name: "Rails of Wales" }));
    const parts = reader.getByRole("list", { name: "Parts" });
    await expect
      .poll(() => parts.locator(".series-item-number").allInnerTexts())
      .toEqual(["Part 1", "Part 2", "Part 3"]);
    expect(await parts.getByRole("heading", { level: 2 }).allInnerTexts()).toEqual([
      first.title,
      second.title,
      third.title,
    ]);
    await shows(reader.getByRole("link", { name: "RSS feed" }));
    expect(await reader.getByRole("region", { name: "Manage this series" }).count()).toBe(0);
    await expectAccessible(reader);
    for (const watched of [site, plain, visitor]) {
      expectNoProblems(watched);
      await watched.context.close();
    }
  });
  it("renders a series' page for visitors (kept), readers and its writer, its feeds in the head, and the post's box", async () => {
    const api = client(server.url);
    const reader = await buildUser(server, api);
    const { _id: id } = await seriesCalls(api).addSeries(author, {
      title: "Tunnels <& bridges>",
      description: "Two crossings.",
    });
    const series = id;
    const out = await addPost(api, author, {
      title: "The Severn tunnel",
      category: "Travel",
      series,
    });
    const hidden = await addPost(api, author, {
      title: "A bridge not yet written",
      category: "Travel",
      status: "draft",
      series,
    });
    const last = await addPost(api, author, {
      title: "The Forth bridge",
      category: "Travel",
      series,
    });
    const as = (token?: string) =>
      fetch(`${server.url}/series/${id}`, token ? { headers: { cookie: `session=${token}` } } : {});

    const visitor = await as();
    expect(visitor.status).toBe(200);
    const html = await visitor.text();
    expect(html).toContain('<h1 class="page-title">Tunnels &lt;&amp; bridges&gt;</h1>');
    expect(html).toContain(
      `<link rel="alternate" type="application/rss+xml" href="/rss.xml?series=${id}"`,
    );
    expect(html).toContain(`href="/feed.json?series=${id}"`);
    expect(html).toContain('<meta name="description" content="Two crossings."/>');
    expect(html).toContain('<meta property="og:title" content="Tunnels &lt;&amp; bridges&gt;"/>');
    expect(html).toContain(">Part 2<");
    expect(html).not.toContain(hidden.title);
    expect(html).not.toContain("Manage this series");
    // Kept for visitors: the same render again.
    expect(await (await as()).text()).toBe(html);
    // A reader who is not its writer: no draft, no form.
    const theirs = await (await as(reader.token)).text();
    expect(theirs).toContain(out.title);
    expect(theirs).not.toContain(hidden.title);
    expect(theirs).not.toContain("Manage this series");
    // Its writer: the draft marked, and the form.
    const writers = await (await as(author.token)).text();
    expect(writers).toContain(hidden.title);
    expect(writers).toContain("Manage this series");
    expect(writers).toContain('<span class="status-tag">Draft</span>');

    // The post's box: its place as readers count it, the parts, previous and next.
    const post = await (await fetch(`${server.url}/posts/details/${last._id}`)).text();
    expect(post).toContain("Part 2 of 2 in ");
    const box = post.slice(post.indexOf('class="series-box"'), post.indexOf('class="post-body"'));
    expect(box).toMatch(new RegExp(`<a rel="prev"[^>]* href="/posts/details/${out._id}"`));
    expect(box).not.toContain('rel="next"');
    expect(post).toContain(`<span aria-current="page">${last.title}</span>`);
    expect(post).not.toContain(hidden.title);
    // A reader's page is made from the members' shell, the box in it (the test server checks it
    // against the page rendered whole).
    const member = await fetch(`${server.url}/posts/details/${last._id}`, {
      headers: { cookie: `session=${reader.token}` },
    });
    expect(member.status).toBe(200);
    expect(await member.text()).toContain("Part 2 of 2 in ");
    const plain = await (await fetch(`${server.url}/posts/details/${out._id}`)).text();
    expect(plain).toMatch(new RegExp(`<a rel="next"[^>]* href="/posts/details/${last._id}"`));

    // In the sitemap once a post of it is out; an unknown series is a 404; /series is a member's.
    expect(await (await fetch(`${server.url}/sitemap.xml`)).text()).toContain(`/series/${id}<`);
    for (const unknown of ["no-such-series", "0b7e1f9a-3c44-4d2e-9a51-6f1d2c3b4a59"]) {
      expect((await fetch(`${server.url}/series/${unknown}`)).status, unknown).toBe(404);
    }
    const away = await fetch(`${server.url}/series`, { redirect: "manual" });
    expect(away.status).toBe(302);
    expect(away.headers.get("location")).toBe("/?from=%2Fseries");
  });
});
