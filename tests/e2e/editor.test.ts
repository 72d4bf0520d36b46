import { randomUUID } from "node:crypto";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { buildUser, signInAdmin, type TestUser } from "../support/factories.js";
import { postForm } from "../support/form-post.js";
import { client } from "../support/http.js";
import { pngImage } from "../support/images.js";
import { addCategory, addPost, type PostDetail } from "../support/post-fixtures.js";
import { startTestServer } from "../support/test-server.js";
import { overflowsOf, SCREENS, scrollToTopOf, uncovered } from "./measure.js";
import {
  expectAccessible,
  expectNoProblems,
  readLocalStorage,
  shows,
  type Watched,
  openBrowserSite,
  ownerMenu,
} from "./browser.js";

const {
  server,
  api,
  open,
  users: { author, stranger },
} = await openBrowserSite({ users: ["author", "stranger"], categories: ["Travel"] });

let post: PostDetail;

const CREATE_DRAFT = "blog:draft:create";

/** The parts of the page's DOM the tests touch (the tests are compiled without the DOM's types). */
interface TextArea {
  value: string;
  focus(): void;
  setSelectionRange(start: number, end: number): void;
  dispatchEvent(event: unknown): boolean;
}
interface BrowserGlobals {
  DataTransfer: new () => {
    items: { add(file: unknown): void };
    setData(type: string, data: string): void;
  };
  File: new (parts: unknown[], name: string, options: { type: string }) => unknown;
  ClipboardEvent: new (type: string, init: Record<string, unknown>) => unknown;
  DragEvent: new (type: string, init: Record<string, unknown>) => unknown;
}

beforeAll(async () => {
  post = await addPost(api, author, {
    title: "Night trains",
    category: "Travel",
    description: "## Sleepers\n\nA **bunk** and a [timetable](https://example.com/times).",
  });
});

/** The author on the create-post page, with the editor ready (it enhances after hydration). */
async function openEditor(options: { javaScriptEnabled?: boolean } = {}) {
  const site = await open({ ...options, signedIn: author.token });
  await site.page.goto("/posts/create-post");
  if (options.javaScriptEnabled !== false) {
    await shows(site.page.getByRole("tab", { name: "Write" }));
  }
  return site;
}

const body = (page: Page) => page.getByLabel("Post Description");

/** Selects `text` (its first occurrence) in the body, as a writer would with the mouse. */
async function select(page: Page, text: string) {
  await body(page).evaluate((element: unknown, wanted) => {
    const area = element as TextArea;
    const start = area.value.indexOf(wanted);
    area.focus();
    area.setSelectionRange(start, start + wanted.length);
  }, text);
}

async function fillForm(page: Page, title: string) {
  await page.getByLabel("Post Title").fill(title);
  await page.getByLabel("Category").selectOption("Travel");
  await page
    .getByLabel("Post Image")
    .setInputFiles({ name: "a.png", mimeType: "image/png", buffer: await pngImage() });
}

const preview = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
  postForm(server, "/posts/preview", new URLSearchParams(fields).toString(), headers);
const as = (user: TestUser) => ({ cookie: `session=${user.token}` });

describe("the preview route", () => {
  it("is for signed-in writers, from this site only", async () => {
    const anonymous = await preview({ description: "**hi**" });
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ message: "Please log in to preview a post" });
    const foreign = await preview(
      { description: "**hi**" },
      {
        ...as(author),
        origin: "https://evil.example",
      },
    );
    expect(foreign.status).toBe(403);
    expect((await fetch(`${server.url}/posts/preview`, { headers: as(author) })).status).toBe(405);
  });

  it("refuses what saving would refuse, naming the field", async () => {
    const script = await preview({ description: "[x](javascript:alert(1))" }, as(author));
    expect(script.status).toBe(400);
    expect(await script.json()).toEqual({
      message: "Description must not contain a script or a javascript: link",
      errors: { description: "Description must not contain a script or a javascript: link" },
    });
    const long = await preview({ description: "a".repeat(20_001) }, as(author));
    expect(long.status).toBe(400);
    expect(((await long.json()) as { errors: unknown }).errors).toEqual({
      description: "Description must be at most 20000 characters long",
    });
  });

  it("previews an edit for the post's author only", async () => {
    const other = await preview({ description: "x", postId: post._id }, as(stranger));
    expect(other.status).toBe(403);
    const missing = await preview(
      { description: "x", postId: "0123456789abcdef01234567" },
      as(author),
    );
    expect(missing.status).toBe(404);
  });

  it("answers the HTML the post page shows, made by the same renderer", async () => {
    const shown = await preview({ description: post.description, postId: post._id }, as(author));
    expect(shown.status).toBe(200);
    expect(shown.headers.get("cache-control")).toBe("no-store");
    const { html } = (await shown.json()) as { html: string };
    const page = await api.get<PostDetail>(`/api/posts/${post._id}`);
    expect(html).toBe(page.body.html);
    expect(html).toContain('rel="ugc nofollow"');
    const blank = await preview({ description: "  " }, as(author));
    expect(await blank.json()).toEqual({ html: "" });
  });
});

describe("the editor", () => {
  it("formats the selection from the toolbar and with shortcuts, and Undo takes it back", async () => {
    const site = await openEditor();
    const { page } = site;
    await expectAccessible(page);
    // On a phone the toolbar is one row, scrolled sideways, not rows over the text (issue 50).
    await page.setViewportSize(SCREENS[1].size);
    const toolbar = page.getByRole("toolbar", { name: "Formatting" });
    const button = await toolbar.getByRole("button", { name: "Bold" }).boundingBox();
    const bar = await toolbar.boundingBox();
    expect(bar?.height).toBeLessThan((button?.height ?? 0) * 1.5);
    expect((await overflowsOf(page)).filter((found) => found.startsWith("page"))).toEqual([]);
    await page.setViewportSize(SCREENS[0].size);
    await body(page).fill("Pack light\nwear boots");
    await select(page, "light");
    await page
      .getByRole("toolbar", { name: "Formatting" })
      .getByRole("button", { name: "Bold" })
      .click();
    expect(await body(page).inputValue()).toBe("Pack **light**\nwear boots");
    await select(page, "boots");
    await page.keyboard.press("Control+I");
    expect(await body(page).inputValue()).toBe("Pack **light**\nwear _boots_");
    await page.keyboard.press("Control+Z");
    expect(await body(page).inputValue()).toBe("Pack **light**\nwear boots");
    // Ctrl+B, and Cmd+B as a Mac keyboard sends it; the second takes the first back.
    await select(page, "boots");
    await page.keyboard.press("Control+B");
    expect(await body(page).inputValue()).toBe("Pack **light**\nwear **boots**");
    await select(page, "boots");
    await page.keyboard.press("Meta+B");
    expect(await body(page).inputValue()).toBe("Pack **light**\nwear boots");
    await select(page, "Pack");
    await page.getByRole("button", { name: "Heading", exact: true }).click();
    expect(await body(page).inputValue()).toBe("## Pack **light**\nwear boots");
    await select(page, "wear");
    await page.keyboard.press("Control+K");
    expect(await body(page).inputValue()).toBe("## Pack **light**\n[wear](https://) boots");
    // The link's address is selected, ready to be typed over.
    await page.keyboard.type("https://example.com");
    expect(await body(page).inputValue()).toBe(
      "## Pack **light**\n[wear](https://example.com) boots",
    );
    await select(page, "boots");
    for (const name of ["Quote", "List"])
      await page.getByRole("button", { name, exact: true }).click();
    expect(await body(page).inputValue()).toBe(
      "## Pack **light**\n- > [wear](https://example.com) boots",
    );
    await shows(page.getByText("55 / 20,000 characters"));
    expectNoProblems(site);
    await site.context.close();
  });

  it("previews the text as the post page will show it", async () => {
    const site = await openEditor();
    const { page } = site;
    await body(page).fill("## What to bring\n\n- [x] Passport\n- [ ] **Rain** coat\n\n<b>raw</b>");
    await page.getByRole("tab", { name: "Preview" }).click();
    const panel = page.getByRole("tabpanel", { name: "Preview" });
    await shows(panel.getByRole("heading", { name: "What to bring", level: 2 }));
    expect(await panel.getByRole("checkbox", { name: "Passport" }).isChecked()).toBe(true);
    await shows(panel.locator("strong").getByText("Rain"));
    await shows(panel.getByText("<b>raw</b>"));
    expect(await page.getByRole("tab", { name: "Preview" }).getAttribute("aria-selected")).toBe(
      "true",
    );
    expect(await body(page).isVisible()).toBe(false);
    await expectAccessible(page);

    // Back to writing with the arrow keys; a refused text shows the server's message.
    await page.getByRole("tab", { name: "Preview" }).press("ArrowLeft");
    await body(page).fill("[click](javascript:alert(1))");
    await page.getByRole("tab", { name: "Preview" }).click();
    await shows(panel.getByText("Description must not contain a script or a javascript: link"));
    expectNoProblems(site);
    await site.context.close();
  });

  it("keeps the writing through a reload, offers to discard it, and forgets it once published", async () => {
    const site = await openEditor();
    const { page } = site;
    await page.getByLabel("Post Title").fill("Half-written");
    await body(page).fill("Where was I");
    // Its category and tags come back with it (issue 50).
    await page.getByLabel("Category").selectOption("Travel");
    await page.getByLabel(/^Tags/).fill("trains, night");
    await page.reload();
    await shows(page.getByRole("status").getByText(/Restored your unsaved text from/));
    expect(await body(page).inputValue()).toBe("Where was I");
    expect(await page.getByLabel("Post Title").inputValue()).toBe("Half-written");
    expect(await page.getByLabel("Category").inputValue()).toBe("Travel");
    expect(await page.getByLabel(/^Tags/).inputValue()).toBe("trains, night");

    await page.getByRole("button", { name: "Discard" }).click();
    expect(await body(page).inputValue()).toBe("");
    expect(await page.getByLabel("Post Title").inputValue()).toBe("");
    expect(await page.getByLabel("Category").inputValue()).toBe("");
    expect(await page.getByLabel(/^Tags/).inputValue()).toBe("");
    expect(await readLocalStorage(page, CREATE_DRAFT)).toBeNull();

    await body(page).fill("Written twice, kept once");
    await fillForm(page, "Kept then published");
    expect(await readLocalStorage(page, CREATE_DRAFT)).toContain("Kept then published");
    await page.getByRole("button", { name: "Publish", exact: true }).click();
    await shows(page.getByRole("status").getByText("Post created successfully"));
    expect(await readLocalStorage(page, CREATE_DRAFT)).toBeNull();
    expectNoProblems(site);
    await site.context.close();
  });

  it("keeps the writing when the network drops as it is sent, and offers it back", async () => {
    const site = await openEditor();
    const { page } = site;
    await fillForm(page, "Sent into a tunnel");
    await body(page).fill("Written on a train");
    await site.context.setOffline(true);
    await page.getByRole("button", { name: "Publish", exact: true }).click();
    // Whatever the page shows for the failed request, the text is kept in the browser...
    await expect
      .poll(async () => readLocalStorage(page, CREATE_DRAFT), { timeout: 10_000 })
      .toContain("Written on a train");
    await site.context.setOffline(false);
    // ...and offered back on return.
    await page.goto("/posts/create-post");
    await shows(page.getByRole("status").getByText(/Restored your unsaved text from/));
    expect(await body(page).inputValue()).toBe("Written on a train");
    expect(await page.getByLabel("Post Title").inputValue()).toBe("Sent into a tunnel");
    await page.getByRole("button", { name: "Discard" }).click();
    await site.context.close();
  });

  it("edits a post with the same editor, its draft kept apart from a new post's", async () => {
    // A post of its own, so a retry starts from the same text.
    const own = await addPost(api, author, {
      title: "Night buses",
      category: "Travel",
      description: "## Seats\n\nA **window** seat.",
    });
    const draft = `blog:draft:edit:${own._id}`;
    const site = await open({ signedIn: author.token });
    const { page } = site;
    await page.goto(`/posts/details/${own._id}`);
    const dialog = page.getByRole("dialog", { name: "Update Post" });
    const edit = async () => {
      await (await ownerMenu(page)).getByRole("button", { name: "Edit Post" }).click();
      await shows(dialog.getByRole("tab", { name: "Write" }));
    };
    await edit();
    const description = dialog.getByLabel("Description", { exact: true });
    expect(await description.inputValue()).toBe("## Seats\n\nA **window** seat.");
    await description.fill("## Seats\n\nA **window** seat.\n\nAnd a *second* thought.");
    await page.reload();
    await edit();
    await shows(dialog.getByRole("status").getByText(/Restored your unsaved text/));
    await dialog.getByRole("tab", { name: "Preview" }).click();
    await shows(
      dialog.getByRole("tabpanel", { name: "Preview" }).locator("em").getByText("second"),
    );
    await expectAccessible(page);
    expect(await readLocalStorage(page, CREATE_DRAFT)).toBeNull();
    await dialog.getByRole("button", { name: "Update Post" }).click();
    await dialog.waitFor({ state: "hidden", timeout: 10_000 });
    await shows(page.locator("article > .post-body em").getByText("second"));
    expect(await readLocalStorage(page, draft)).toBeNull();
    expectNoProblems(site);
    await site.context.close();
  });

  it("keeps SPEC's messages, and counts past the limit", async () => {
    const site = await openEditor();
    const { page } = site;
    await page.getByRole("tab", { name: "Preview" }).click();
    await page.getByRole("button", { name: "Publish", exact: true }).click();
    // A refused form brings the text back into view, its message under it.
    await shows(page.getByText("Post description is required", { exact: true }));
    expect(await body(page).isVisible()).toBe(true);
    await body(page).fill("a".repeat(20_003));
    await shows(page.getByText("20,003 / 20,000 characters (3 too many)"));
    await page.getByRole("button", { name: "Publish", exact: true }).click();
    await shows(page.getByText("Description must be at most 20000 characters long"));
    await site.context.close();
  });

  it("is a plain text area without JavaScript, and the form still posts", async () => {
    const site = await openEditor({ javaScriptEnabled: false });
    const { page } = site;
    expect(await page.getByRole("tab").count()).toBe(0);
    expect(await page.getByRole("toolbar").count()).toBe(0);
    await body(page).fill("No scripts, **still** Markdown.");
    await fillForm(page, "Posted without scripts");
    await page.getByRole("button", { name: "Publish", exact: true }).click();
    await shows(page.getByText("Post created successfully"));
    const posts = (await api.get<PostDetail[]>("/api/posts")).body;
    const created = posts.find((item) => item.title === "Posted without scripts");
    expect(created?.description).toBe("No scripts, **still** Markdown.");
    await site.context.close();
  });
});

interface DroppedFile {
  name: string;
  type: string;
  /** The file's bytes; or, for a large file of zeros, its size alone (made in the page). */
  bytes: number[] | { zeros: number };
}

/** Pastes (or drops) files into the body as the clipboard (or a drag) would hand them over. */
async function paste(
  site: Watched,
  files: DroppedFile[],
  how: "paste" | "drop" = "paste",
  text?: string,
) {
  await body(site.page).evaluate(
    (element: unknown, { list, kind, words }) => {
      const dom = globalThis as unknown as BrowserGlobals;
      const transfer = new dom.DataTransfer();
      if (words !== undefined) transfer.setData("text/plain", words);
      for (const file of list) {
        transfer.items.add(
          new dom.File(
            [
              Array.isArray(file.bytes)
                ? new Uint8Array(file.bytes)
                : new Uint8Array(file.bytes.zeros),
            ],
            file.name,
            { type: file.type },
          ),
        );
      }
      const init = { bubbles: true, cancelable: true };
      (element as TextArea).dispatchEvent(
        kind === "paste"
          ? new dom.ClipboardEvent("paste", { ...init, clipboardData: transfer })
          : new dom.DragEvent("drop", { ...init, dataTransfer: transfer }),
      );
    },
    { list: files, kind: how, words: text },
  );
}

const png = async (name = "pasted.png"): Promise<DroppedFile> => ({
  name,
  type: "image/png",
  bytes: [...(await pngImage(80, 60))],
});

/** Puts the caret in the body just after `text`. */
async function caretAfter(page: Page, text: string) {
  await body(page).evaluate((element: unknown, wanted) => {
    const area = element as TextArea;
    const at = area.value.indexOf(wanted) + wanted.length;
    area.focus();
    area.setSelectionRange(at, at);
  }, text);
}

/** An uploaded image as the editor writes it into the text. */
const UPLOADED = String.raw`!\[\]\((?:http://[^/)\s]+)?/uploads/[^)\s]+\)`;

/** Waits until no upload is under way. */
const uploadsDone = (page: Page) =>
  page.getByRole("progressbar").first().waitFor({ state: "detached", timeout: 10_000 });

describe("images in the text", () => {
  it("uploads a pasted image with its progress shown, and puts it in at the cursor", async () => {
    const site = await openEditor();
    const { page } = site;
    // Held a moment on its way, so the progress can be seen.
    await page.route("**/posts/images", async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 700));
      await route.fallback();
    });
    await body(page).fill("Before after");
    await caretAfter(page, "Before ");
    await paste(site, [await png()]);
    await shows(page.getByRole("progressbar", { name: "Uploading pasted.png" }));
    await expectAccessible(page);
    await uploadsDone(page);
    expect(await body(page).inputValue()).toMatch(new RegExp(`^Before ${UPLOADED}after$`));

    await page.getByRole("tab", { name: "Preview" }).click();
    // `![](…)` has no description yet: the image is shown as decoration (alt="").
    const image = page.getByRole("tabpanel", { name: "Preview" }).locator("img");
    await shows(image);
    const width = await image.evaluate(
      (element: unknown) => (element as { naturalWidth: number }).naturalWidth,
    );
    expect(width).toBeGreaterThan(0);
    expect(await image.getAttribute("alt")).toBe("");
    expectNoProblems(site);
    await site.context.close();
  });

  it("uploads a dropped image and one chosen with the toolbar's button", async () => {
    const site = await openEditor();
    const { page } = site;
    await body(page).fill("One\n");
    await caretAfter(page, "One\n");
    await paste(site, [await png("dropped.png")], "drop");
    await shows(page.getByRole("progressbar", { name: "Uploading dropped.png" }));
    await uploadsDone(page);
    expect(await body(page).inputValue()).toMatch(new RegExp(`^One\n${UPLOADED}$`));
    // Its description is asked for at once, and goes into the text (Enter does not send the form).
    const asked = page.getByLabel("Describe dropped.png for readers who cannot see it (alt text)");
    await asked.fill("A red [racing] bicycle");
    await asked.press("Enter");
    expect(await body(page).inputValue()).toContain("One\n![A red \\[racing\\] bicycle](");
    expect(await page.getByText("Post created successfully").count()).toBe(0);
    const chooser = page.waitForEvent("filechooser");
    await page.getByRole("button", { name: "Image", exact: true }).click();
    await (
      await chooser
    ).setFiles({
      name: "chosen.png",
      mimeType: "image/png",
      buffer: await pngImage(),
    });
    await expect
      .poll(() => body(page).inputValue(), { timeout: 10_000 })
      .toMatch(new RegExp(`^One\n!\\[A red .*\\)${UPLOADED}$`));
    // Skipped, it can be described later.
    await page.getByRole("button", { name: "Skip" }).click();
    await shows(page.getByText("An image in the text has no description."));
    await page.getByRole("button", { name: "Describe it" }).click();
    await page.getByLabel(/^Describe An image in the text/).fill("A map");
    await page.getByRole("button", { name: "Add description" }).click();
    expect(await body(page).inputValue()).toMatch(/!\[A map\]\(/);
    expect(await page.getByText("An image in the text has no description.").count()).toBe(0);
    expectNoProblems(site);
    await site.context.close();
  });

  it("shows a refusal by the field and puts nothing in", async () => {
    const site = await openEditor();
    const { page } = site;
    // Text with a picture of itself (as office suites copy it): the text is pasted, not the picture.
    await paste(site, [await png()], "paste", "Copied words");
    expect(await page.getByRole("progressbar").count()).toBe(0);
    // Refused in the browser: not an image at all.
    await paste(site, [{ name: "notes.txt", type: "text/plain", bytes: [104, 105] }]);
    const refusals = page.getByRole("alert", { name: "Images not added" });
    // Named with the file and the rule, by the upload: the text itself is not marked wrong.
    await shows(
      refusals.getByText("notes.txt: Unsupported File Format (JPEG, PNG or GIF images only)"),
    );
    // Refused by the server: named like an image, but not one.
    await body(page).fill("");
    await paste(site, [{ name: "fake.png", type: "image/png", bytes: [1, 2, 3, 4] }]);
    await uploadsDone(page);
    await shows(
      refusals.getByText("fake.png: Unsupported File Format (JPEG, PNG or GIF images only)"),
    );
    expect(await body(page).inputValue()).toBe("");
    expect(await body(page).getAttribute("aria-invalid")).toBeNull();
    // Too large, named with the limit.
    await paste(site, [{ name: "huge.png", type: "image/png", bytes: { zeros: 7_000_001 } }]);
    await shows(refusals.getByText("huge.png: File size is too large (at most 7 MB)"));
    await site.context.close();
  });
});

describe("the image route", () => {
  it("is for signed-in writers, and answers as the API does", async () => {
    const send = (headers: Record<string, string>) => {
      const form = new FormData();
      form.set("image", new Blob([new Uint8Array([1, 2, 3])], { type: "image/png" }), "x.png");
      return fetch(`${server.url}/posts/images`, {
        method: "POST",
        headers: { origin: server.config.publicUrl, ...headers },
        body: form,
      });
    };
    const anonymous = await send({});
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ message: "Please log in to upload images" });
    expect((await send({ ...as(author), origin: "https://evil.example" })).status).toBe(403);
    const broken = await send(as(author));
    expect(broken.status).toBe(415);
    expect(await broken.json()).toEqual({ message: "Unsupported File Format" });

    const form = new FormData();
    form.set("image", new Blob([new Uint8Array(await pngImage(90, 40))]), "ok.png");
    const uploaded = await fetch(`${server.url}/posts/images`, {
      method: "POST",
      headers: { origin: server.config.publicUrl, ...as(author) },
      body: form,
    });
    expect(uploaded.status).toBe(201);
    const image = (await uploaded.json()) as { url: string; width: number; height: number };
    expect(image.url.startsWith(`${server.config.publicUrl}/uploads/`)).toBe(true);
    expect([image.width, image.height]).toEqual([90, 40]);
  });

  it("refuses an account past its day's images with the API's 429, naming the limit", async () => {
    const member = await buildUser(server, api);
    // As if the member had uploaded 200 images in the last hour.
    const hourAgo = new Date(Date.now() - 60 * 60 * 1000).toISOString();
    await server.app.deps.db
      .insertInto("body_images")
      .values(
        Array.from({ length: 200 }, () => ({
          image_key: `images/${randomUUID()}`,
          uploader_id: member.id,
          post_id: null,
          width: 8,
          height: 8,
          bytes: 1000,
          created_at: hourAgo,
          released_at: null,
        })),
      )
      .execute();
    const form = new FormData();
    form.set("image", new Blob([new Uint8Array(await pngImage())]), "one-more.png");
    const refused = await fetch(`${server.url}/posts/images`, {
      method: "POST",
      headers: { origin: server.config.publicUrl, ...as(member) },
      body: form,
    });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({
      message: "You can upload at most 200 images a day, please try again later",
    });
  });
});

describe("the preview's allowance", () => {
  it("is 60 previews in 5 minutes per address, its own: edits are not spent on it", async () => {
    const limited = await startTestServer({ RATE_LIMITS: "on" });
    try {
      const limitedApi = client(limited.url);
      const admin = await signInAdmin(limited, limitedApi);
      await addCategory(limitedApi, admin, "Travel");
      const writer = await buildUser(limited, limitedApi);
      const own = await addPost(limitedApi, writer, { category: "Travel" });
      const send = () => postForm(limited, "/posts/preview", "description=**hi**", as(writer));
      for (let i = 0; i < 60; i += 1) expect((await send()).status).toBe(200);
      const refused = await send();
      expect(refused.status).toBe(429);
      expect(await refused.json()).toEqual({
        message: "Too many requests, please try again in 5 minutes",
      });
      const edit = await postForm(
        limited,
        `/posts/details/${own._id}`,
        "intent=edit-post&title=Still%20editable&category=Travel&description=Edited",
        as(writer),
      );
      expect(edit.status).toBe(200);
      expect((await limitedApi.get<PostDetail>(`/api/posts/${own._id}`)).body.title).toBe(
        "Still editable",
      );
    } finally {
      await limited.close();
    }
  });
});

describe("drafts that save themselves (issue 32)", () => {
  /** A draft of the author's, made through the API. */
  const draftOf = (title: string) =>
    addPost(api, author, {
      title,
      category: "Travel",
      description: "First words.",
      status: "draft",
    });
  const autosave = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
    postForm(server, "/posts/autosave", new URLSearchParams(fields).toString(), headers);
  const fieldsOf = (draft: PostDetail, changes: Record<string, string> = {}) => ({
    postId: draft._id,
    updatedAt: draft.updatedAt,
    title: draft.title,
    category: "Travel",
    description: draft.description,
    tags: "",
    ...changes,
  });
  const revisionCount = async (id: string) =>
    (await api.get<unknown[]>(`/api/posts/${id}/revisions`, { token: author.token })).body.length;

  it("refuses visitors, strangers, other origins, a published post, a stale save and a bad field", async () => {
    const draft = await draftOf("Saved by itself");
    expect((await autosave(fieldsOf(draft))).status).toBe(401);
    expect((await autosave(fieldsOf(draft), as(stranger))).status).toBe(404);
    const foreign = await autosave(fieldsOf(draft), {
      ...as(author),
      origin: "https://evil.example",
    });
    expect(foreign.status).toBe(403);
    expect((await autosave(fieldsOf(post), as(author))).status).toBe(400);
    const stale = await autosave(
      fieldsOf(draft, { updatedAt: "2020-01-01T00:00:00.000Z", title: "Lost?" }),
      as(author),
    );
    expect(stale.status).toBe(409);
    expect(((await stale.json()) as { message: string }).message).toMatch(/saved elsewhere/);
    const blank = await autosave(fieldsOf(draft, { title: " " }), as(author));
    expect(blank.status).toBe(400);
    expect(((await blank.json()) as { errors: Record<string, string> }).errors.title).toBe(
      "Title is required",
    );
    expect((await fetch(`${server.url}/posts/autosave`, { headers: as(author) })).status).toBe(405);
    const kept = await api.get<PostDetail>(`/api/posts/${draft._id}`, { token: author.token });
    expect(kept.body.title).toBe("Saved by itself");
    expect(kept.body.status).toBe("draft");
  });

  it("saves a draft as it is, keeps it a draft, and keeps one revision for a run of saves", async () => {
    const draft = await draftOf("Written on a train");
    const first = await autosave(fieldsOf(draft, { description: "Second words." }), as(author));
    expect(first.status).toBe(200);
    const { updatedAt } = (await first.json()) as { updatedAt: string };
    const second = await autosave(
      fieldsOf(draft, { updatedAt, description: "Third words.", tags: "rails" }),
      as(author),
    );
    expect(second.status).toBe(200);
    const now = await api.get<PostDetail>(`/api/posts/${draft._id}`, { token: author.token });
    expect(now.body.description).toBe("Third words.");
    expect(now.body.tags).toEqual(["rails"]);
    expect(now.body.status).toBe("draft");
    expect(await revisionCount(draft._id)).toBe(1);
  });

  it("survives a reload: the editor shows what saved itself, and says so", async () => {
    const draft = await draftOf("Notes from the platform");
    const site = await open({ signedIn: author.token });
    const { page } = site;
    await page.goto(`/posts/edit/${draft._id}`);
    await shows(page.getByText("Changes to this draft save themselves as you write."));
    // Once the page runs its script (the editor's tabs show it).
    await shows(page.getByRole("tab", { name: "Write" }));
    const bodyField = page.getByLabel("Description", { exact: true });
    await bodyField.fill("Words that must not be lost.");
    // Written with the body at the top of the window, the state is still in view, not under the
    // sticky header (issue 50): beside the buttons, which stay at the foot of the window.
    await scrollToTopOf(bodyField);
    await bodyField.press("End");
    await bodyField.pressSequentially(" Kept.");
    await shows(page.getByRole("status").getByText("Unsaved changes…"));
    await shows(page.getByRole("status").getByText(/^Saved/));
    expect(await uncovered(page.locator(".autosave-status"))).toBe(true);
    await page.reload();
    expect(await page.getByLabel("Description", { exact: true }).inputValue()).toBe(
      "Words that must not be lost. Kept.",
    );
    expect(await page.getByText(/Restored your unsaved text/).count()).toBe(0);
    expectNoProblems(site);
    await site.context.close();
  });
});
