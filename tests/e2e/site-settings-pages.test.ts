import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pageAutosaveMessages } from "../../core/pages/pages-service.js";
import { buildUser, signInAdmin, type TestUser } from "../support/factories.js";
import { postForm } from "../support/form-post.js";
import { client, type Client } from "../support/http.js";
import { pngImage } from "../support/images.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

// Site settings (decision 020) on the rendered pages, kept renders included: the API's rules are
// in tests/api/site-settings.test.ts; this file needs the site's build, which this project makes.

let server: TestServer;
let api: Client;
let admin: TestUser;

const FIRST = { title: "First Title", welcome: "Welcome from the environment." };
const STORED = {
  title: "Stored Title",
  welcome: "Welcome from the database.",
  contactPhone: "+44 (20) 7946-0958",
  contactEmail: "stored@example.com",
};

beforeAll(async () => {
  server = await startTestServer({
    SITE_TITLE: FIRST.title,
    SITE_WELCOME: FIRST.welcome,
    SITE_CONTACT_PHONE: "+1 555 0100",
    SITE_CONTACT_EMAIL: "first@example.com",
  });
  api = client(server.url);
  admin = await signInAdmin(server, api);
});
afterAll(() => server.close());

/** An anonymous page as a visitor gets it (from the shared render when one is kept). */
const page = async (path: string) => (await fetch(`${server.url}${path}`)).text();

describe("saved site settings", () => {
  it("show on the next render of every page, kept renders included", async () => {
    expect(await page("/")).toContain(FIRST.title);
    expect(await page("/posts")).toContain(`All posts on ${FIRST.title}`);

    const saved = await api.put("/api/admin/settings", STORED, { token: admin.token });
    expect(saved.status, saved.text).toBe(200);

    const home = await page("/");
    expect(home).toContain(`<title>${STORED.title}</title>`);
    expect(home).toContain(STORED.welcome);
    expect(home).toContain(`href="mailto:${STORED.contactEmail}"`);
    expect(home).toContain(`href="tel:+442079460958"`);
    expect(home).toContain(`content="${STORED.welcome}"`);
    expect(home).not.toContain(FIRST.title);
    expect(await page("/posts")).toContain(`All posts on ${STORED.title}`);
  });

  it("put the logo in the header, and take it out once removed", async () => {
    const withLogo = await api.form<{ settings: { logo: { url: string } | null } }>(
      "PUT",
      "/api/admin/settings",
      { fields: STORED, file: { bytes: await pngImage(300, 100) } },
      { token: admin.token },
    );
    expect(withLogo.status, withLogo.text).toBe(200);
    const logo = withLogo.body.settings.logo?.url ?? "";
    expect(logo).not.toBe("");
    expect(await page("/")).toContain(`src="${logo}"`);

    const removed = await api.put(
      "/api/admin/settings",
      { ...STORED, removeLogo: true },
      { token: admin.token },
    );
    expect(removed.status, removed.text).toBe(200);
    const home = await page("/");
    expect(home).not.toContain(logo);
    expect(home).not.toContain("brand-logo");
  });
});

describe("navigation (issue 51, decision 032)", () => {
  const footerOf = (html: string) => html.slice(html.indexOf('<footer class="site-footer"'));
  const mainNavOf = (html: string) => {
    const start = html.indexOf('aria-label="Main"');
    return html.slice(start, html.indexOf("</nav>", start));
  };

  it("shows the defaults, then the admin's links in order on every page, kept renders included", async () => {
    const before = await page("/posts");
    const defaults = footerOf(before);
    expect(defaults.indexOf('href="/" data-discover="true">Home<')).toBeGreaterThan(-1);
    expect(defaults.indexOf('href="/" data-discover="true">Home<')).toBeLessThan(
      defaults.indexOf(">Posts<"),
    );
    expect(defaults.indexOf(">Posts<")).toBeLessThan(defaults.indexOf('href="/rss.xml">RSS<'));

    const navigation = {
      header: [
        { label: "About", url: "/tag/about" },
        { label: "Go", url: "/tag/go" },
      ],
      footer: [
        { label: "Posts", url: "/posts" },
        { label: "Source", url: "https://example.org/inkwell" },
        { label: "Feed", url: "/rss.xml" },
      ],
    };
    const saved = await api.put(
      "/api/admin/settings",
      { ...STORED, navigation },
      { token: admin.token },
    );
    expect(saved.status, saved.text).toBe(200);

    for (const path of ["/posts", "/", "/menu"]) {
      const html = await page(path);
      const footer = footerOf(html);
      expect(footer.indexOf(">Posts<"), path).toBeLessThan(footer.indexOf(">Source<"));
      expect(footer.indexOf(">Source<"), path).toBeLessThan(footer.indexOf(">Feed<"));
      expect(footer).toContain('href="https://example.org/inkwell" rel="noopener">Source<');
      // A file is a plain link (the client router has no page for it).
      expect(footer).toContain('href="/rss.xml">Feed<');
      // Contact is the contact address, not navigation: it stays, after the admin's links.
      expect(footer.indexOf(">Feed<")).toBeLessThan(footer.indexOf(">Contact<"));
      expect(footer).not.toContain('href="/" data-discover="true">Home<');
    }
    const nav = mainNavOf(await page("/posts"));
    expect(nav.indexOf(">Posts<")).toBeLessThan(nav.indexOf(">About<"));
    expect(nav.indexOf(">About<")).toBeLessThan(nav.indexOf(">Go<"));
    expect(nav).toContain('href="/tag/about"');
    // The menu page (the side menu without JavaScript) has them too, after Posts.
    const menu = await page("/menu");
    const menuNav = menu.slice(menu.indexOf('aria-label="Menu"'));
    expect(menuNav.indexOf(">Posts<")).toBeLessThan(menuNav.indexOf(">About<"));
  });
});

describe("static pages on the site (decision 032)", () => {
  it("serve a published page with its share card, redirect an old slug, and keep a draft from visitors", async () => {
    const made = await api.post<{ _id: string; updatedAt: string }>(
      "/api/pages",
      {
        title: "Colophon",
        slug: "colophon",
        description: "Set in *system fonts*.",
        metaDescription: "How this site is made.",
      },
      { token: admin.token },
    );
    expect(made.status).toBe(201);
    const html = await page("/pages/colophon");
    expect(html).toContain("<h1>Colophon</h1>");
    expect(html).toContain("<em>system fonts</em>");
    expect(html).toContain('<meta property="og:title" content="Colophon"/>');
    expect(html).toContain('<meta name="description" content="How this site is made."/>');
    expect(html).not.toContain("noindex");
    // Kept for visitors, and made again once the page changes.
    expect(await page("/pages/colophon")).toBe(html);
    await api.put(
      `/api/pages/${made.body._id}`,
      { title: "How it is made", slug: "made" },
      {
        token: admin.token,
      },
    );
    expect(await page("/pages/made")).toContain("<h1>How it is made</h1>");
    const moved = await fetch(`${server.url}/pages/colophon`, { redirect: "manual" });
    expect(moved.status).toBe(301);
    expect(moved.headers.get("location")).toBe("/pages/made");
    expect(moved.headers.get("cache-control")).toBe("no-cache");

    await api.put(`/api/pages/${made.body._id}`, { status: "draft" }, { token: admin.token });
    for (const path of ["/pages/made", "/pages/colophon"]) {
      const refused = await fetch(`${server.url}${path}`, { redirect: "manual" });
      expect(refused.status, path).toBe(404);
      expect(await refused.text()).not.toContain("How it is made");
    }
  });
});

describe("a draft page saving itself (decision 032)", () => {
  interface Saved {
    _id: string;
    title: string;
    slug: string;
    description: string;
    status: string;
    updatedAt: string;
  }
  const as = (user: TestUser) => ({ cookie: `session=${user.token}` });
  const autosave = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
    postForm(server, "/admin-dashboard/page-autosave", new URLSearchParams(fields).toString(), {
      accept: "application/json",
      ...headers,
    });
  const fieldsOf = (saved: Saved, changes: Record<string, string> = {}) => ({
    pageId: saved._id,
    updatedAt: saved.updatedAt,
    title: saved.title,
    slug: saved.slug,
    description: saved.description,
    metaDescription: "",
    ...changes,
  });
  const add = async (slug: string, status: "draft" | "published") => {
    const made = await api.post<Saved>(
      "/api/pages",
      { title: `Page ${slug}`, slug, description: "First words.", status },
      { token: admin.token },
    );
    expect(made.status, made.text).toBe(201);
    return made.body;
  };
  const read = async (id: string) =>
    (await api.get<Saved[]>("/api/pages", { token: admin.token })).body.find((p) => p._id === id);
  const revisions = async (id: string) =>
    (await api.get<unknown[]>(`/api/pages/${id}/revisions`, { token: admin.token })).body.length;
  const audited = async () =>
    (await api.get<unknown[]>("/api/admin/audit", { token: admin.token })).body.length;

  it("refuses visitors, members, a published page, a stale version and a bad field", async () => {
    const draft = await add("saves-itself", "draft");
    const published = await add("out-already", "published");
    const member = await buildUser(server, api);
    expect((await autosave(fieldsOf(draft))).status).toBe(401);
    expect((await autosave(fieldsOf(draft), as(member))).status).toBe(403);
    const out = await autosave(fieldsOf(published, { title: "Changed?" }), as(admin));
    expect(out.status).toBe(400);
    expect(((await out.json()) as { message: string }).message).toBe(pageAutosaveMessages.notDraft);
    const stale = await autosave(
      fieldsOf(draft, { updatedAt: "2020-01-01T00:00:00.000Z", title: "Lost?" }),
      as(admin),
    );
    expect(stale.status).toBe(409);
    const missing = await autosave(fieldsOf(draft, { updatedAt: "", title: "Lost?" }), as(admin));
    expect(missing.status).toBe(409);
    // A save by itself never changes the page's state (the editor leaves the field out).
    const publishing = await autosave(fieldsOf(draft, { status: "published" }), as(admin));
    expect(publishing.status).toBe(400);
    const blank = await autosave(fieldsOf(draft, { title: " " }), as(admin));
    expect(blank.status).toBe(400);
    expect(((await blank.json()) as { errors: Record<string, string> }).errors.title).toBe(
      "Page title is required",
    );
    const asked = await fetch(`${server.url}/admin-dashboard/page-autosave`, {
      headers: as(admin),
    });
    expect(asked.status).toBe(405);
    expect(await read(draft._id)).toMatchObject({ title: draft.title, status: "draft" });
    expect(await read(published._id)).toMatchObject({ title: published.title });
  });

  it("saves a draft as it is, keeps it a draft, one revision for a run of saves, unaudited", async () => {
    const draft = await add("written-slowly", "draft");
    const auditedBefore = await audited();
    const first = await autosave(fieldsOf(draft, { description: "Second words." }), as(admin));
    expect(first.status, await first.clone().text()).toBe(200);
    const { updatedAt } = (await first.json()) as { updatedAt: string };
    expect(updatedAt > draft.updatedAt).toBe(true);
    // The address as typed so far is not taken: the button saves it.
    const second = await autosave(
      fieldsOf(draft, {
        updatedAt,
        description: "Third words.",
        title: "Written slowly",
        slug: "saves-itself",
      }),
      as(admin),
    );
    expect(second.status).toBe(200);
    const now = await api.get<Saved>(`/api/pages/${draft.slug}`, { token: admin.token });
    expect(now.body).toMatchObject({
      slug: draft.slug,
      title: "Written slowly",
      description: "Third words.",
      status: "draft",
    });
    expect(await revisions(draft._id)).toBe(1);
    expect(await audited()).toBe(auditedBefore);
    // A draft is still nobody's but admins'.
    expect((await fetch(`${server.url}/pages/${draft.slug}`)).status).toBe(404);
  });
});
