import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { sweepUnusedBodyImages } from "../../core/media/sweep.js";
import type { TestUser } from "../support/factories.js";
import type { Reply } from "../support/http.js";
import { filesOfImage, imageFolderOf, pngImage } from "../support/images.js";
import { addPost, expectPublicUser, type PublicUser } from "../support/post-fixtures.js";
import { failOnServerErrors } from "../support/server-errors.js";
import { openTestSite } from "../support/site.js";
import { elementsNamed, parseXml } from "../support/xml.js";

// Static pages (DESIGN.md 11, "Pages and series"; decision 032): admins write them, anyone reads
// the published ones at their slug; never in post lists or feeds, in the sitemap once published.

const {
  server,
  api,
  admin,
  users: { member },
} = await openTestSite({ users: ["member"], categories: ["General"] });

failOnServerErrors(() => server);

interface Page {
  _id: string;
  slug: string;
  title: string;
  description: string;
  html: string;
  excerpt: string;
  metaDescription: string | null;
  status: "draft" | "published";
  author: PublicUser | null;
  publishedAt: string | null;
  createdAt: string;
  updatedAt: string;
}
type PageSummary = Pick<
  Page,
  "_id" | "slug" | "title" | "metaDescription" | "status" | "publishedAt" | "updatedAt"
>;
interface Revision {
  _id: string;
  createdAt: string;
  editor: PublicUser | null;
  title: string;
}

const ADMINS_ONLY = "Only admins can write pages";
const NOT_FOUND = "Page not found";
const NO_REVISION = "Revision not found";
const SLUG_INVALID =
  "A slug may use lowercase letters, digits and single hyphens between them, at most 80 characters";
const SLUG_TAKEN = "Another page already has this slug";
const SCRIPT = "Description must not contain a script or a javascript: link";
/** Ids that are no page: unknown, malformed and injection-shaped. */
const MISSING_IDS = [randomUUID(), "abc", "1%20OR%201=1"];

const as = (user?: TestUser) => ({ token: user?.token });
let made = 0;
const pageFields = (fields: Record<string, unknown> = {}) => {
  made += 1;
  return {
    title: `Page ${String(made)}`,
    slug: `page-${String(made)}`,
    description: "Some *words*.",
    ...fields,
  };
};

async function addPage(fields: Record<string, unknown> = {}, by: TestUser = admin) {
  const reply = await api.post<Page>("/api/pages", pageFields(fields), as(by));
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

/** A few milliseconds apart, so each edit has a time of its own (revisions, audit, updatedAt). */
const tick = () => new Promise((resolve) => setTimeout(resolve, 3));

const putPage = (id: string, fields: Record<string, unknown>) =>
  api.put<Page>(`/api/pages/${id}`, fields, as(admin));

async function editPage(id: string, fields: Record<string, unknown>) {
  await tick();
  const reply = await putPage(id, fields);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

const getPage = (slug: string, user?: TestUser) => api.get<Page>(`/api/pages/${slug}`, as(user));
const listPages = (user?: TestUser) => api.get<PageSummary[]>("/api/pages", as(user));
const revisionsOf = (id: string) =>
  api.get<Revision[]>(`/api/pages/${id}/revisions`, as(admin)).then((reply) => reply.body);

function expectError(reply: Reply, status: number, message: string, field?: string) {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.body).toEqual(field ? { message, errors: { [field]: message } } : { message });
}

const pageRows = () => server.app.deps.db.selectFrom("pages").selectAll().execute();

describe("who may write pages", () => {
  it("refuses anonymous callers with 401 and members with 403, changing nothing", async () => {
    const page = await addPage();
    await editPage(page._id, { title: "Edited once" });
    const [revision] = await revisionsOf(page._id);
    const before = await pageRows();
    const calls: [string, string, Record<string, unknown>?][] = [
      ["POST", "/api/pages", pageFields()],
      ["PUT", `/api/pages/${page._id}`, { title: "Hijacked" }],
      ["DELETE", `/api/pages/${page._id}`],
      ["GET", `/api/pages/${page._id}/revisions`],
      ["GET", `/api/pages/${page._id}/revisions/${revision?._id ?? ""}`],
      ["POST", `/api/pages/${page._id}/revisions/${revision?._id ?? ""}/restore`],
    ];
    for (const [method, path, body] of calls) {
      const send = (user?: TestUser) =>
        api.raw(method, path, body && JSON.stringify(body), {
          ...as(user),
          headers: body ? { "content-type": "application/json" } : {},
        });
      expectError(await send(), 401, "No token provided, please log in");
      expectError(await send(member), 403, ADMINS_ONLY);
    }
    expect(await pageRows()).toEqual(before);
  });
});

/** A field sent wrong, the field the answer names, and its words. */
type Refusal = [Record<string, unknown>, string, string];

describe("what a page must be", () => {
  it.each<Refusal>([
    [{ title: undefined }, "title", "Page title is required"],
    [{ title: "   " }, "title", "Page title is required"],
    [{ title: "t".repeat(201) }, "title", "Title must be at most 200 characters long"],
    [{ slug: undefined }, "slug", "Page slug is required"],
    [{ slug: "" }, "slug", "Page slug is required"],
    ...["a--b", "-a", "a-", "a b", "ä", "a_b", "a/b", "a".repeat(81)].map((slug): Refusal => [
      { slug },
      "slug",
      SLUG_INVALID,
    ]),
    [{ description: undefined }, "description", "Page text is required"],
    [{ description: " \n " }, "description", "Page text is required"],
    [
      { metaDescription: "m".repeat(161) },
      "metaDescription",
      "Meta description must be at most 160 characters long",
    ],
    [{ status: "scheduled" }, "status", "Status must be draft or published"],
  ])("refuses %j with 400 naming the field", async (fields, field, message) => {
    const count = (await pageRows()).length;
    const reply = await api.post("/api/pages", pageFields(fields), as(admin));
    expectError(reply, 400, message, field);
    expect(await pageRows()).toHaveLength(count);
  });

  it("refuses the same rules on an edit, leaving the page as it was", async () => {
    const page = await addPage();
    for (const [fields, field, message] of [
      [{ slug: "Not a slug" }, "slug", SLUG_INVALID],
      [{ title: "" }, "title", "Page title is required"],
      [{ status: "hidden" }, "status", "Status must be draft or published"],
    ] as const) {
      expectError(await putPage(page._id, fields), 400, message, field);
    }
    expect((await getPage(page.slug)).body).toEqual(page);
  });

  it("lowers an uppercase slug and takes one of 80 characters", async () => {
    expect((await addPage({ slug: " About " })).slug).toBe("about");
    expect((await addPage({ slug: "a".repeat(80) })).slug).toBe("a".repeat(80));
    expect((await getPage("ABOUT")).body.slug).toBe("about");
  });

  it("refuses a body with a script as a post's, on create and on edit", async () => {
    const count = (await pageRows()).length;
    for (const description of ["<script>alert(1)</script>", "[x](javascript:alert(1))"]) {
      const reply = await api.post("/api/pages", pageFields({ description }), as(admin));
      expectError(reply, 400, SCRIPT, "description");
    }
    expect(await pageRows()).toHaveLength(count);
    const page = await addPage();
    const edit = { description: "<script>alert(1)</script>" };
    expectError(await putPage(page._id, edit), 400, SCRIPT, "description");
    expect((await getPage(page.slug)).body).toEqual(page);
  });

  it("refuses a slug another page has with 409 naming it, on create and on edit", async () => {
    const taken = await addPage();
    const reply = await api.post("/api/pages", pageFields({ slug: taken.slug }), as(admin));
    expectError(reply, 409, SLUG_TAKEN, "slug");
    const other = await addPage();
    const edit = { slug: taken.slug.toUpperCase() };
    expectError(await putPage(other._id, edit), 409, SLUG_TAKEN, "slug");
    expect((await getPage(other.slug)).body).toEqual(other);
    // Two admins taking one new slug at once: one has it, the other is told so.
    const racing = await Promise.all(
      [1, 2].map(() => api.post("/api/pages", pageFields({ slug: "contested" }), as(admin))),
    );
    expect(racing.map((r) => r.status).sort()).toEqual([201, 409]);
  });

  it("refuses an edit made over a change since the page was read with 409", async () => {
    const page = await addPage();
    const edited = await editPage(page._id, { title: "First edit", updatedAt: page.updatedAt });
    expect(edited.updatedAt).not.toBe(page.updatedAt);
    const stale = await putPage(page._id, { title: "Second edit", updatedAt: page.updatedAt });
    const message = "This page was changed elsewhere since you opened it: reload to see it";
    expectError(stale, 409, message);
    expect((await getPage(page.slug)).body).toEqual(edited);
    // Two saves of the page as read, at once: one is written, the other refused.
    const racing = await Promise.all(
      ["A", "B"].map((title) => putPage(page._id, { title, updatedAt: edited.updatedAt })),
    );
    expect(racing.map((r) => r.status).sort()).toEqual([200, 409]);
  });
});

describe("pages that are not there", () => {
  it("answers 404 for an unknown or malformed slug or id", async () => {
    for (const slug of ["no-such-page", "a--b", "%20", "x".repeat(81)]) {
      expectError(await getPage(slug, admin), 404, NOT_FOUND);
    }
    for (const id of MISSING_IDS) {
      expectError(await putPage(id, { title: "x" }), 404, NOT_FOUND);
      expectError(await api.delete(`/api/pages/${id}`, as(admin)), 404, NOT_FOUND);
      expectError(await api.get(`/api/pages/${id}/revisions`, as(admin)), 404, NOT_FOUND);
      const restore = `/api/pages/${id}/revisions/${randomUUID()}/restore`;
      expectError(await api.post(restore, undefined, as(admin)), 404, NOT_FOUND);
    }
  });

  it("keeps a draft from anyone but admins, at its slug, its old slug and in the list", async () => {
    const draft = await addPage({ slug: "draft-notes", status: "draft" });
    expect(draft).toMatchObject({ status: "draft", publishedAt: null });
    await editPage(draft._id, { slug: "draft-plans" });
    for (const slug of ["draft-plans", "draft-notes"]) {
      for (const user of [undefined, member])
        expectError(await getPage(slug, user), 404, NOT_FOUND);
      expect((await getPage(slug, admin)).body).toMatchObject({
        _id: draft._id,
        slug: "draft-plans",
      });
    }
    expect((await listPages(member)).body.map((p) => p._id)).not.toContain(draft._id);
    expect((await listPages(admin)).body.map((p) => p._id)).toContain(draft._id);
  });

  it("answers 404 for a revision id of another page, or none", async () => {
    const page = await addPage();
    const other = await addPage();
    await editPage(other._id, { title: "Other, edited" });
    const [theirs] = await revisionsOf(other._id);
    for (const revisionId of [theirs?._id ?? "", randomUUID(), "abc"]) {
      const path = `/api/pages/${page._id}/revisions/${revisionId}`;
      expectError(await api.get(path, as(admin)), 404, NO_REVISION);
      expectError(await api.post(`${path}/restore`, undefined, as(admin)), 404, NO_REVISION);
    }
  });
});

describe("a page's life", () => {
  it("is created with its rendered body and author, and read by slug by anyone", async () => {
    const reply = await api.post<Page>(
      "/api/pages",
      {
        title: "About us",
        slug: "about-us",
        description: "# Who we are\n\nA *small* team.",
        metaDescription: "Who writes here",
      },
      as(admin),
    );
    expect(reply.status, reply.text).toBe(201);
    const page = reply.body;
    expect(Object.keys(page).sort()).toEqual(
      ["_id", "author", "createdAt", "description", "excerpt", "html", "metaDescription"]
        .concat(["publishedAt", "slug", "status", "title", "updatedAt"])
        .sort(),
    );
    expect(page).toMatchObject({
      slug: "about-us",
      title: "About us",
      description: "# Who we are\n\nA *small* team.",
      metaDescription: "Who writes here",
      status: "published",
      publishedAt: page.createdAt,
      updatedAt: page.createdAt,
    });
    expect(page.html).toContain("<em>small</em>");
    expect(page.html).toMatch(/<h1[^>]*>.*Who we are.*<\/h1>/);
    expect(page.excerpt).toContain("A small team.");
    expectPublicUser(page.author);
    expect(page.author).toMatchObject({ _id: admin.id, username: admin.username });
    for (const user of [undefined, member, admin]) {
      const read = await getPage("about-us", user);
      expect(read.status).toBe(200);
      expect(read.body).toEqual(page);
    }
    // A blank meta description clears it; such an edit keeps no revision.
    expect((await editPage(page._id, { metaDescription: " " })).metaDescription).toBeNull();
    expect(await revisionsOf(page._id)).toEqual([]);
  });

  it("lists published pages by title to anyone, drafts too to admins, without bodies", async () => {
    const gamma = await addPage({ title: "Gamma", slug: "gamma" });
    const alpha = await addPage({ title: "alpha", slug: "alpha" });
    const beta = await addPage({ title: "Beta", slug: "beta", status: "draft" });
    const umlaut = await addPage({ title: "Über uns", slug: "ueber-uns" });
    const ours = (list: PageSummary[]) =>
      list.filter((p) => [alpha, beta, gamma, umlaut].some((made) => made._id === p._id));
    const anonymous = await listPages();
    expect(anonymous.status).toBe(200);
    // As a reader sorts: case and accents aside, alike on SQLite and PostgreSQL.
    expect(ours(anonymous.body).map((p) => p.title)).toEqual(["alpha", "Gamma", "Über uns"]);
    expect(anonymous.body.every((p) => p.status === "published")).toBe(true);
    const all = (await listPages(admin)).body;
    expect(ours(all).map((p) => p.title)).toEqual(["alpha", "Beta", "Gamma", "Über uns"]);
    for (const item of all) {
      expect(Object.keys(item).sort()).toEqual(
        ["_id", "metaDescription", "publishedAt", "slug", "status", "title", "updatedAt"].sort(),
      );
    }
  });

  it("keeps an old slug answering after a rename, until another page takes it", async () => {
    const page = await addPage({ slug: "team" });
    expect((await editPage(page._id, { slug: "people" })).slug).toBe("people");
    expect((await getPage("team")).body).toMatchObject({ _id: page._id, slug: "people" });
    // Back to its first slug: both answer, with the current one.
    expect((await editPage(page._id, { slug: "team" })).slug).toBe("team");
    for (const slug of ["team", "people"]) {
      expect((await getPage(slug)).body).toMatchObject({ _id: page._id, slug: "team" });
    }
    // Another page takes the old slug: the redirect ends; the first page cannot take it back.
    const other = await addPage({ slug: "people" });
    expect((await getPage("people")).body._id).toBe(other._id);
    expectError(await putPage(page._id, { slug: "people" }), 409, SLUG_TAKEN, "slug");
  });

  it("stays out of post lists and feeds, and is in the sitemap only once published", async () => {
    const post = await addPost(api, admin, { title: "A real post", category: "General" });
    const page = await addPage({ title: "Colophon page", slug: "colophon", status: "draft" });
    const pageUrl = `${server.config.publicUrl}/pages/colophon`;
    const sitemap = async () => {
      const reply = await api.get("/sitemap.xml");
      expect(reply.status).toBe(200);
      return elementsNamed(parseXml(reply.text), "loc").map((loc) => loc.text);
    };
    expect(await sitemap()).not.toContain(pageUrl);
    const published = await editPage(page._id, { status: "published" });
    expect(published.publishedAt).toBe(published.updatedAt);
    for (const path of ["/api/posts", "/rss.xml", "/feed.json"]) {
      const reply = await api.get(path);
      expect(reply.status).toBe(200);
      expect(reply.text).toContain(post.title);
      expect(reply.text).not.toContain("Colophon page");
      expect(reply.text).not.toContain("/pages/colophon");
    }
    expect(await sitemap()).toContain(pageUrl);
  });

  it("keeps a revision of each edit of its title or text, to list, read and restore", async () => {
    const page = await addPage({ title: "Contact", description: "Write to us." });
    await editPage(page._id, { title: "Contact us" });
    await editPage(page._id, { description: "Call us." });
    await editPage(page._id, { status: "draft", metaDescription: "How to reach us" });
    const revisions = await revisionsOf(page._id);
    expect(revisions.map((r) => r.title)).toEqual(["Contact us", "Contact"]);
    for (const revision of revisions) {
      expect(Object.keys(revision).sort()).toEqual(["_id", "createdAt", "editor", "title"]);
      expectPublicUser(revision.editor);
      expect(revision.editor?._id).toBe(admin.id);
    }
    const oldest = revisions[1]?._id ?? "";
    const read = await api.get(`/api/pages/${page._id}/revisions/${oldest}`, as(admin));
    expect(read.status, read.text).toBe(200);
    expect(read.body).toEqual({
      _id: oldest,
      createdAt: revisions[1]?.createdAt,
      title: "Contact",
      description: "Write to us.",
    });
    const restored = await api.post<Page>(
      `/api/pages/${page._id}/revisions/${oldest}/restore`,
      undefined,
      as(admin),
    );
    expect(restored.status, restored.text).toBe(200);
    expect(restored.body).toMatchObject({
      title: "Contact",
      description: "Write to us.",
      metaDescription: "How to reach us",
      status: "draft",
    });
    expect(restored.body.html).toContain("Write to us.");
    expect((await revisionsOf(page._id)).map((r) => r.title)).toEqual([
      "Contact us",
      "Contact us",
      "Contact",
    ]);
  });

  it("is deleted with its revisions and old slugs, and the audit log names each step", async () => {
    const page = await addPage({ title: "Short-lived", slug: "short-lived" });
    await editPage(page._id, { title: "Shorter-lived", slug: "shorter-lived" });
    await tick();
    const reply = await api.delete(`/api/pages/${page._id}`, as(admin));
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual({ pageId: page._id, message: "Page deleted" });
    for (const slug of ["short-lived", "shorter-lived"]) {
      expectError(await getPage(slug, admin), 404, NOT_FOUND);
    }
    expectError(await api.delete(`/api/pages/${page._id}`, as(admin)), 404, NOT_FOUND);
    expectError(await api.get(`/api/pages/${page._id}/revisions`, as(admin)), 404, NOT_FOUND);
    for (const table of ["page_revisions", "page_slugs"] as const) {
      const rows = server.app.deps.db.selectFrom(table).select("page_id");
      expect(await rows.where("page_id", "=", page._id).execute(), table).toEqual([]);
    }
    const audit = await api.get<{ action: string; target: Record<string, string> }[]>(
      "/api/admin/audit",
      as(admin),
    );
    expect(audit.status).toBe(200);
    const entries = audit.body.filter((entry) => entry.target._id === page._id);
    expect(entries.map(({ action, target }) => [action, target.kind, target.summary])).toEqual([
      ["page.delete", "page", "Shorter-lived"],
      ["page.update", "page", "Shorter-lived"],
      ["page.create", "page", "Short-lived"],
    ]);
  });
});

describe("images in a page's body", () => {
  const DAY = 24 * 60 * 60 * 1000;
  const rowOf = (url: string) =>
    server.app.deps.db
      .selectFrom("body_images")
      .selectAll()
      .where("image_key", "=", imageFolderOf(url))
      .executeTakeFirstOrThrow();
  /** Dates the upload (and its release, if any) two days back, then runs the daily sweep. */
  async function sweepAfterTwoDays(url: string) {
    const then = new Date(Date.now() - 2 * DAY).toISOString();
    const row = await rowOf(url);
    await server.app.deps.db
      .updateTable("body_images")
      .set({ created_at: then, released_at: row.released_at === null ? null : then })
      .where("image_key", "=", row.image_key)
      .execute();
    return sweepUnusedBodyImages(server.app.deps, { olderThan: new Date(Date.now() - DAY) });
  }

  it("are claimed by the page, so the sweep keeps them, and let go when it is deleted", async () => {
    const upload = await api.form<{ url: string }>(
      "POST",
      "/api/posts/images",
      { file: { bytes: await pngImage(640, 320), filename: "map.png" } },
      as(admin),
    );
    expect(upload.status, upload.text).toBe(201);
    const { url } = upload.body;
    const page = await addPage({ description: `Find us:\n\n![A map](${url})` });
    expect(page.html).toMatch(/<img src="[^"]+" alt="A map" [^>]*width="640" height="320"/);
    expect(await rowOf(url)).toMatchObject({ page_id: page._id, post_id: null, released_at: null });
    expect(await sweepAfterTwoDays(url)).toBe(0);
    expect(await filesOfImage(server, url)).not.toEqual([]);

    expect((await api.delete(`/api/pages/${page._id}`, as(admin))).status).toBe(200);
    const released = await rowOf(url);
    expect(released.page_id).toBeNull();
    expect(typeof released.released_at).toBe("string");
    expect(await sweepAfterTwoDays(url)).toBe(1);
    expect(await filesOfImage(server, url)).toEqual([]);
  });

  it("stay with the page when a post names them, and when their uploader's account goes", async () => {
    // A second admin uploads the picture and puts it in a page.
    await server.app.deps.db
      .updateTable("users")
      .set({ is_admin: 1 })
      .where("id", "=", member.id)
      .execute();
    const upload = await api.form<{ url: string }>(
      "POST",
      "/api/posts/images",
      { file: { bytes: await pngImage(320, 160), filename: "team.png" } },
      as(member),
    );
    expect(upload.status, upload.text).toBe(201);
    const { url } = upload.body;
    const page = await addPage({ description: `![The team](${url})` }, member);
    // An admin's post naming it shows it, but does not take it from the page.
    await addPost(api, admin, { category: "General", description: `![The team](${url})` });
    expect(await rowOf(url)).toMatchObject({ page_id: page._id, post_id: null });
    // The uploader's account goes; the page keeps its picture.
    expect((await api.delete(`/api/users/profile/${member.id}`, as(admin))).status).toBe(200);
    expect(await rowOf(url)).toMatchObject({ page_id: page._id, uploader_id: null });
    expect(await sweepAfterTwoDays(url)).toBe(0);
    expect(await filesOfImage(server, url)).not.toEqual([]);
  });
});
