import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { bodyColumns } from "../../core/posts/body.js";
import { pngImage } from "../support/images.js";
import { addComment, addPost, postRows, type PostDetail } from "../support/post-fixtures.js";
import { expectNoProblems, shows, type Watched, openBrowserSite, ownerMenu } from "./browser.js";

// Issue 7, point 5: script in every field people write (post title and description, comment,
// username, bio, social link, category title) stays text on every page that shows it. Each page
// is read twice: with the site's CSP, and with CSP switched off in the browser, which proves the
// escaping alone holds (CSP is the second wall, not the first).
// Issue 16: the description is Markdown. A script in it (a <script> tag, an on… handler, a
// javascript: link) is refused on every path that writes one (API and pages, create and edit);
// every other hostile piece is stored as written and must stay inert in the rendered body, on
// the cards (the excerpt) and in the feeds; a post written before Markdown stays plain text.

const RUN = "window.__xss=1";
/** What a body may not hold: refused with 400 naming `description` wherever it is written. */
const SCRIPT_BODIES = [
  `</script><script>${RUN}</script>`,
  `<img src=x onerror="${RUN}">`,
  `[click me](javascript:${RUN})`,
  `<javascript:${RUN}>`,
];
const SCRIPT_MESSAGE = "Description must not contain a script or a javascript: link";
/** Shown verbatim inside a code block, where a post may quote a script. */
const QUOTED = `</script><script>${RUN}</script><img src=x onerror="${RUN}">`;
const PAYLOADS = {
  title: `<script>${RUN}</script>"><svg onload=${RUN}>`,
  // Hostile Markdown that is no script, so it is stored: raw tags shown as text, URLs that try to
  // break out of their attribute, an image from elsewhere, and scripts quoted in code.
  description: [
    `# "><img src=x>`,
    "",
    `<iframe src="https://x.example/"></iframe><style>*{display:none}</style> <img src=x>`,
    "",
    `[a link](https://x.example/"><svg/onload=${RUN}>) and ![an image](https://x.example/a.png"onerror="${RUN})`,
    "",
    `| <img src=x> | <iframe src="https://x.example/"> |`,
    "|---|---|",
    "| cell | cell |",
    "",
    "```html",
    QUOTED,
    "```",
  ].join("\n"),
  comment: `<img src=x onerror="${RUN}"></title><script>${RUN}</script>`,
  bio: `"><svg onload=${RUN}><iframe src="javascript:${RUN}">`,
  // Usernames are 3 to 15 characters; the profile form takes any of them.
  username: "<img src=x>",
  category: `<img src=x onerror=${RUN}>`,
  // A real https address (so it is accepted) that would break out of an attribute if unquoted.
  link: `https://x.example/"><svg/onload=${RUN}>`,
};

const {
  server,
  api,
  admin,
  open,
  users: { member },
} = await openBrowserSite({ users: ["member"], categories: ["Plain"] });

let post: PostDetail;
/** A post written before Markdown (plain text), holding the payload that is now refused. */
let plainPost: PostDetail;

beforeAll(async () => {
  const category = await api.post(
    "/api/categories",
    { title: PAYLOADS.category },
    {
      token: admin.token,
    },
  );
  expect(category.status, category.text).toBe(201);
  post = await addPost(api, member, {
    title: PAYLOADS.title,
    description: PAYLOADS.description,
    category: PAYLOADS.category,
  });
  await addComment(api, member, post._id, PAYLOADS.comment);
  plainPost = await addPost(api, member, { title: "Written before", category: "Plain" });
  // As migration 004 leaves such a post: its text as written, marked plain, rendered as text.
  await server.app.deps.db
    .updateTable("posts")
    .set(bodyColumns(QUOTED, "plain", { followLinks: false, imageBases: [] }))
    .set({ description: QUOTED })
    .where("id", "=", plainPost._id)
    .execute();
  // javascript: links are refused outright; the hostile https one is stored as it is.
  const refused = await api.put(
    `/api/users/profile/${member.id}`,
    {
      username: member.username,
      email: member.email,
      bio: "x",
      socialMedia: [{ name: "github", url: `javascript:${RUN}` }],
    },
    { token: member.token },
  );
  expect(refused.status).toBe(400);
  const profile = await api.put(
    `/api/users/profile/${member.id}`,
    {
      username: member.username,
      email: member.email,
      bio: PAYLOADS.bio,
      socialMedia: [{ name: "github", url: PAYLOADS.link }],
    },
    { token: member.token },
  );
  expect(profile.status, profile.text).toBe(200);
  // Usernames are letters and digits now, on sign-up and on the profile alike; one written before
  // that rule (or by an import) must still stay text.
  await server.app.deps.db
    .updateTable("users")
    .set({ username: PAYLOADS.username })
    .where("id", "=", member.id)
    .execute();
});

/** Fails if anything the payloads carry ran or became an element. */
async function expectInert(site: Watched, where: string) {
  const { page } = site;
  // Hydration and any client rendering run before the checks.
  await page.waitForLoadState("networkidle");
  const ran = await page.evaluate(() => (globalThis as unknown as { __xss?: number }).__xss);
  expect(ran, `${where}: a payload ran`).toBeUndefined();
  for (const selector of [
    "img[src='x']",
    "svg[onload]",
    "iframe",
    "script:not([src]):not([nonce])",
  ]) {
    expect(await page.locator(selector).count(), `${where}: ${selector}`).toBe(0);
  }
  // No element carries an event handler, whatever the body's HTML-looking text tried.
  // (Page code as text: these tests compile without the DOM's types.)
  const handlers = await page.evaluate<string[]>(`[...document.querySelectorAll("*")].flatMap(
    (element) => [...element.attributes]
      .filter((attribute) => attribute.name.toLowerCase().startsWith("on"))
      .map((attribute) => element.tagName + " " + attribute.name),
  )`);
  expect(handlers, where).toEqual([]);
  expect(await page.locator("main style, main link").count(), `${where}: style`).toBe(0);
  // Every link on the page goes somewhere real: none runs script.
  const hrefs: string[] = [];
  for (const link of await page.locator("a[href]").all()) {
    hrefs.push((await link.getAttribute("href")) ?? "");
  }
  expect(
    hrefs.filter((href) => /^\s*javascript:/i.test(href)),
    where,
  ).toEqual([]);
}

async function visit(site: Watched, path: string, texts: string[]) {
  const response = await site.page.goto(path);
  expect(response?.status(), path).toBe(200);
  for (const text of texts) await shows(site.page.getByText(text, { exact: false }));
  await expectInert(site, path);
}

/** A watched browser that fails on any dialog (alert, confirm, prompt) a payload might open. */
async function openPage(bypassCSP: boolean, token?: string) {
  const site = await open({ bypassCSP, signedIn: token });
  site.page.on("dialog", (dialog) => {
    site.problems.push(`a dialog opened: ${dialog.message()}`);
    void dialog.dismiss();
  });
  return site;
}

const visibleTitle = "<script>window.__xss=1</script>";

describe.each([
  { mode: "with the site's CSP", bypassCSP: false },
  { mode: "with CSP switched off in the browser", bypassCSP: true },
])("hostile text, $mode", ({ bypassCSP }) => {
  it("stays text on the public pages", async () => {
    const site = await openPage(bypassCSP);
    await visit(site, "/", [visibleTitle]);
    await visit(site, "/posts", [visibleTitle]);
    await visit(site, `/posts/details/${post._id}`, [
      visibleTitle,
      QUOTED,
      '<iframe src="https://x.example/"></iframe><style>*{display:none}</style> <img src=x>',
      '"><img src=x>',
    ]);
    await visit(site, `/posts/details/${plainPost._id}`, [QUOTED]);
    await visit(site, `/posts/categories/${encodeURIComponent(PAYLOADS.category)}`, [visibleTitle]);
    expectNoProblems(site);
    await site.context.close();
  });

  it("stays text on the owner's pages and in forms filled with it", async () => {
    const site = await openPage(bypassCSP, member.token);
    // Profiles are for signed-in readers; the owner's own view has the most on it.
    await visit(site, `/profile/${member.id}`, [PAYLOADS.username]);
    await shows(site.page.getByText(PAYLOADS.bio, { exact: true }));
    const link = site.page.locator(`a[href*="x.example"]`);
    expect(await link.first().getAttribute("href")).toBe(PAYLOADS.link);
    // The edit form is filled with the stored values, as values.
    await site.page.getByRole("button", { name: "Update Profile" }).click();
    await shows(site.page.locator("textarea[name='bio']"));
    await expectInert(site, "the open edit form");
    const values: string[] = [];
    for (const field of await site.page.locator("input, textarea").all()) {
      values.push(await field.inputValue());
    }
    expect(values).toContain(PAYLOADS.bio);
    expect(values).toContain(PAYLOADS.link);
    await visit(site, `/posts/details/${post._id}`, [visibleTitle]);
    expectNoProblems(site);
    await site.context.close();
  });

  it("stays text in the admin tables", async () => {
    const site = await openPage(bypassCSP, admin.token);
    for (const path of [
      "/admin-dashboard",
      "/admin-dashboard/users-table",
      "/admin-dashboard/posts-table",
      "/admin-dashboard/categories-table",
      "/admin-dashboard/comments-table",
    ]) {
      const response = await site.page.goto(path);
      expect(response?.status(), path).toBe(200);
      await expectInert(site, path);
    }
    await shows(site.page.getByText(PAYLOADS.comment, { exact: false }));
    expectNoProblems(site);
    await site.context.close();
  });

  it("stays text when the page comes through the client router's data", async () => {
    const site = await openPage(bypassCSP);
    const { page } = site;
    await page.goto("/");
    await page.waitForLoadState("networkidle");
    await clickThrough(page);
    await shows(page.getByText(QUOTED, { exact: false }));
    await expectInert(site, "post page after a client navigation");
    expectNoProblems(site);
    await site.context.close();
  });

  it("stays text in the editor's preview, and a script is refused there too", async () => {
    const site = await openPage(bypassCSP, member.token);
    const { page } = site;
    await page.goto("/posts/create-post");
    const preview = page.getByRole("tabpanel", { name: "Preview" });
    await page.getByLabel("Post Description").fill(PAYLOADS.description);
    await page.getByRole("tab", { name: "Preview" }).click();
    await shows(preview.getByText(QUOTED, { exact: false }));
    await shows(preview.getByText('"><img src=x>', { exact: false }));
    await expectInert(site, "the editor's preview");
    for (const body of SCRIPT_BODIES) {
      await page.getByRole("tab", { name: "Write" }).click();
      await page.getByLabel("Post Description").fill(body);
      await page.getByRole("tab", { name: "Preview" }).click();
      await shows(preview.getByText(SCRIPT_MESSAGE));
      await expectInert(site, `the preview of ${body}`);
    }
    expectNoProblems(site);
    await site.context.close();
  });
});

describe("a script in a Markdown body", () => {
  it("is refused by the API on create and on edit, with nothing stored", async () => {
    for (const description of SCRIPT_BODIES) {
      const before = await postRows(server);
      const created = await api.form(
        "POST",
        "/api/posts",
        {
          fields: { title: "Hostile", category: "Plain", description },
          file: { bytes: await pngImage(), filename: "a.png" },
        },
        { token: member.token },
      );
      expect(created.status, description).toBe(400);
      expect(created.body).toEqual({
        message: SCRIPT_MESSAGE,
        errors: { description: SCRIPT_MESSAGE },
      });
      expect(await postRows(server)).toBe(before);
      const edited = await api.put(
        `/api/posts/${post._id}`,
        { title: PAYLOADS.title, category: PAYLOADS.category, description },
        { token: member.token },
      );
      expect(edited.status, description).toBe(400);
    }
    const stored = await api.get<PostDetail>(`/api/posts/${post._id}`);
    // As written, its line endings LF (issue 50).
    expect(stored.body.description).toBe(PAYLOADS.description);
  });

  it("is refused by the create-post page and the edit form, the reason under the field", async () => {
    const site = await openPage(false, member.token);
    const { page } = site;
    const before = await postRows(server);
    await page.goto("/posts/create-post");
    await page.getByLabel("Post Title").fill("Hostile");
    await page.getByLabel("Category").selectOption("Plain");
    await page.getByLabel("Post Description").fill(SCRIPT_BODIES[0] ?? "");
    await page
      .getByLabel("Post Image")
      .setInputFiles({ name: "a.png", mimeType: "image/png", buffer: await pngImage() });
    await page.getByRole("button", { name: "Publish" }).click();
    await shows(page.getByText(SCRIPT_MESSAGE));
    expect(await postRows(server)).toBe(before);
    await expectInert(site, "the refused create form");

    await page.goto(`/posts/details/${post._id}`);
    await (await ownerMenu(page)).getByRole("button", { name: "Edit Post" }).click();
    const dialog = page.getByRole("dialog", { name: "Update Post" });
    await dialog.getByLabel("Description").fill(SCRIPT_BODIES[2] ?? "");
    await dialog.getByRole("button", { name: "Update Post" }).click();
    await shows(dialog.getByText(SCRIPT_MESSAGE));
    await expectInert(site, "the refused edit form");
    const stored = await api.get<PostDetail>(`/api/posts/${post._id}`);
    expect(stored.body.html).toBe(post.html);
    expectNoProblems(site);
    await site.context.close();
  });
});

/** Follows the first link to the hostile post, as a reader would. */
async function clickThrough(page: Page) {
  await page.locator(`a[href="/posts/details/${post._id}"]`).first().click();
  await page.waitForURL(`**/posts/details/${post._id}`);
}

describe("feeds", () => {
  it("carry the text escaped", async () => {
    for (const path of ["/rss.xml", "/sitemap.xml"]) {
      const response = await fetch(`${server.url}${path}`);
      expect(response.status).toBe(200);
      const text = await response.text();
      expect(text, path).not.toContain("<script>");
      expect(text, path).not.toContain("<img");
      expect(text, path).not.toContain("<iframe");
    }
  });
});
