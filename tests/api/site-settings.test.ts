import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildUser, signInAdmin, type TestUser } from "../support/factories.js";
import { client, type Client } from "../support/http.js";
import { fetchServed, filesOfImage, pngImage } from "../support/images.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

/** Site settings (issue 21.5, decision 020): GET /api/settings, PUT /api/admin/settings. */
let server: TestServer;
let api: Client;
let admin: TestUser;
let member: TestUser;

const FIRST = {
  title: "First Title",
  welcome: "Welcome from the environment.",
  contactPhone: "+1 555 0100",
  contactEmail: "first@example.com",
};

const VALID = {
  title: "Stored Title",
  welcome: "Welcome from the database.",
  contactPhone: "+44 (20) 7946-0958",
  contactEmail: "stored@example.com",
};

/** Today's fixed footer links, the defaults until an admin saves navigation (decision 032). */
const DEFAULT_NAV = {
  header: [],
  footer: [
    { label: "Home", url: "/" },
    { label: "Posts", url: "/posts" },
    { label: "RSS", url: "/rss.xml" },
  ],
};

interface Settings {
  title: string;
  welcome: string;
  contactPhone: string;
  contactEmail: string;
  logo: { url: string; width?: number; height?: number } | null;
  socialLinks: Record<string, string>;
  navigation: {
    header: { label: string; url: string }[];
    footer: { label: string; url: string }[];
  };
}

beforeAll(async () => {
  server = await startTestServer({
    SITE_TITLE: FIRST.title,
    SITE_WELCOME: FIRST.welcome,
    SITE_CONTACT_PHONE: FIRST.contactPhone,
    SITE_CONTACT_EMAIL: FIRST.contactEmail,
  });
  api = client(server.url);
  admin = await signInAdmin(server, api);
  member = await buildUser(server, api);
});
afterAll(() => server.close());

const settings = () => api.get<Settings>("/api/settings");
const save = (body: unknown, token?: string) =>
  api.put<{ settings: Settings; message: string; errors?: Record<string, string> }>(
    "/api/admin/settings",
    body,
    { token },
  );

async function storedRows() {
  const row = await server.app.deps.db
    .selectFrom("site_settings")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** An anonymous answer as a visitor gets it (from the shared render when one is kept). */
const page = async (path: string) => (await fetch(`${server.url}${path}`)).text();

describe("GET /api/settings", () => {
  it("answers anyone with the SITE_* values until an admin saves settings", async () => {
    const reply = await settings();
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      ...FIRST,
      logo: null,
      socialLinks: {},
      newsletterDefault: "send",
      navigation: DEFAULT_NAV,
    });
    expect(await storedRows()).toBe(0);
  });
});

describe("PUT /api/admin/settings", () => {
  it("refuses signed-out callers with 401 and members with 403, storing nothing", async () => {
    expect((await save(VALID)).status).toBe(401);
    const refused = await save(VALID, member.token);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe("Only admins may do this");
    const upload = await api.form(
      "PUT",
      "/api/admin/settings",
      { fields: VALID, file: { bytes: await pngImage() } },
      { token: member.token },
    );
    expect(upload.status).toBe(403);
    expect(await storedRows()).toBe(0);
  });

  it.each([
    ["title", { title: undefined }, "Title is required"],
    ["title", { title: "   " }, "Title is required"],
    ["title", { title: "t".repeat(81) }, "Title must be at most 80 characters"],
    ["welcome", { welcome: "" }, "Welcome text is required"],
    ["welcome", { welcome: "w".repeat(501) }, "Welcome text must be at most 500 characters"],
    ["contactPhone", { contactPhone: undefined }, "Contact phone is required"],
    [
      "contactPhone",
      { contactPhone: "call me" },
      "Contact phone must be a phone number like +1 555 0100",
    ],
    [
      "contactPhone",
      { contactPhone: "12" },
      "Contact phone must be a phone number like +1 555 0100",
    ],
    [
      "contactPhone",
      { contactPhone: "1".repeat(31) },
      "Contact phone must be at most 30 characters",
    ],
    ["contactEmail", { contactEmail: 42 }, "Contact e-mail is required"],
    [
      "socialLinks",
      { socialLinks: "github.com/me" },
      "Social links must be an object of github, linkedin, x, facebook to web addresses",
    ],
    [
      "socialLinks.github",
      { socialLinks: { github: "javascript:alert(1)" } },
      "Must be a web address starting with https:// or http://",
    ],
    [
      "socialLinks.x",
      { socialLinks: { x: "x.com/someone" } },
      "Must be a web address starting with https:// or http://",
    ],
    [
      "socialLinks.facebook",
      { socialLinks: { facebook: `https://facebook.com/${"a".repeat(2000)}` } },
      "Must be a web address starting with https:// or http://",
    ],
    [
      "contactEmail",
      { contactEmail: "not-an-address" },
      "Contact e-mail must be an e-mail address",
    ],
    [
      "contactEmail",
      { contactEmail: `${"a".repeat(250)}@example.com` },
      "Contact e-mail must be at most 254 characters",
    ],
  ])("answers 400 for %s (rule %#) and stores nothing", async (field, change, message) => {
    const reply = await save({ ...VALID, ...change }, admin.token);
    expect(reply.status).toBe(400);
    expect(reply.body.errors?.[field]).toBe(message);
    expect(await storedRows()).toBe(0);
  });

  it("answers 400 for a body that is not an object and 415 for a logo that is not an image", async () => {
    expect((await save(["a"], admin.token)).status).toBe(400);
    const notImage = await api.form(
      "PUT",
      "/api/admin/settings",
      { fields: VALID, file: { bytes: Buffer.from("<svg onload=alert(1)>"), filename: "x.png" } },
      { token: admin.token },
    );
    expect(notImage.status).toBe(415);
    expect(await storedRows()).toBe(0);
  });

  // The rendered pages are checked in tests/e2e/site-settings-pages.test.ts, which has the site's
  // build; this project runs without one (the API alone, on each Node release).
  it("saves the settings: the next read of the API and the feed show them at once", async () => {
    // Kept answers from before the change must not be served after it.
    expect((await settings()).body).toMatchObject(FIRST);
    expect(await page("/rss.xml")).toContain(`<title>${FIRST.title}</title>`);

    const reply = await save(VALID, admin.token);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      settings: {
        ...VALID,
        logo: null,
        socialLinks: {},
        newsletterDefault: "send",
        navigation: DEFAULT_NAV,
      },
      message: "Site settings saved",
    });
    expect((await settings()).body).toEqual({
      ...VALID,
      logo: null,
      socialLinks: {},
      newsletterDefault: "send",
      navigation: DEFAULT_NAV,
    });

    const rss = await page("/rss.xml");
    expect(rss).toContain(`<title>${VALID.title}</title>`);
    expect(rss).toContain(`<description>${VALID.welcome}</description>`);

    const audit = await api.get<{ action: string; target: { summary: string } }[]>(
      "/api/admin/audit",
      { token: admin.token },
    );
    expect(audit.body[0]).toMatchObject({
      action: "site.update",
      target: { summary: VALID.title },
    });
  });

  it("takes a logo through the image pipeline, replaces it, and removes it", async () => {
    const first = await api.form(
      "PUT",
      "/api/admin/settings",
      { fields: VALID, file: { bytes: await pngImage(300, 100) } },
      { token: admin.token },
    );
    expect(first.status).toBe(200);
    const firstLogo = (first.body as { settings: Settings }).settings.logo;
    expect(firstLogo?.url).toMatch(/\/uploads\/images\/[^/]+\/sm\.webp$/);
    // Its size, so the header can hold its place before it loads.
    expect(firstLogo).toMatchObject({ width: 300, height: 100 });
    const served = await fetchServed(server, firstLogo?.url ?? "");
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("image/webp");

    // Text-only saves keep the logo.
    expect((await save({ ...VALID, title: "Kept Logo" }, admin.token)).body.settings.logo).toEqual(
      firstLogo,
    );

    const second = await api.form(
      "PUT",
      "/api/admin/settings",
      { fields: VALID, file: { bytes: await pngImage(200, 200) } },
      { token: admin.token },
    );
    const secondLogo = (second.body as { settings: Settings }).settings.logo;
    expect(secondLogo?.url).not.toBe(firstLogo?.url);
    expect(secondLogo).toMatchObject({ width: 200, height: 200 });
    expect(await filesOfImage(server, firstLogo?.url ?? "")).toEqual([]);
    expect((await filesOfImage(server, secondLogo?.url ?? "")).length).toBeGreaterThan(0);

    const removed = await save({ ...VALID, removeLogo: true }, admin.token);
    expect(removed.body.settings.logo).toBeNull();
    expect(await filesOfImage(server, secondLogo?.url ?? "")).toEqual([]);
  });
});

describe("social links (issue 33)", () => {
  it("are saved, kept by a save that leaves them out, cleared one by one, and taken as JSON text in multipart", async () => {
    const links = { github: "https://github.com/inkwell", x: "https://x.com/inkwell" };
    const saved = await save({ ...VALID, socialLinks: { ...links, linkedin: "  " } }, admin.token);
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body.settings.socialLinks).toEqual(links);
    expect((await settings()).body.socialLinks).toEqual(links);

    // A client that predates them (SPEC's fields only) changes nothing.
    expect((await save(VALID, admin.token)).body.settings.socialLinks).toEqual(links);
    const cleared = await save({ ...VALID, socialLinks: { ...links, x: "" } }, admin.token);
    expect(cleared.body.settings.socialLinks).toEqual({ github: links.github });

    const multipart = await api.form<{ settings: Settings }>(
      "PUT",
      "/api/admin/settings",
      {
        fields: {
          ...VALID,
          socialLinks: JSON.stringify({ facebook: "https://facebook.com/inkwell" }),
        },
      },
      { token: admin.token },
    );
    expect(multipart.status, multipart.text).toBe(200);
    expect(multipart.body.settings.socialLinks).toEqual({
      facebook: "https://facebook.com/inkwell",
    });
    // Networks not known are not kept.
    const unknown = await save(
      { ...VALID, socialLinks: { myspace: "https://myspace.com/x" } },
      admin.token,
    );
    expect(unknown.body.settings.socialLinks).toEqual({});
  });
});

describe("navigation (issue 51, decision 032)", () => {
  const link = (label: string, url: string) => ({ label, url });

  it("refuses members, and answers 400 per rule, storing nothing", async () => {
    const nav = { header: [link("About", "/pages/about")], footer: [] };
    const before = (await settings()).body.navigation;
    expect((await save({ ...VALID, navigation: nav }, member.token)).status).toBe(403);
    const nine = Array.from({ length: 9 }, (_, i) => link(`L${String(i)}`, `/p${String(i)}`));
    const cases: [body: unknown, field: string, message: string][] = [
      [
        { header: "x", footer: [] },
        "navigation.header",
        "Navigation must be an object with header and footer lists of links",
      ],
      [
        { header: [] },
        "navigation.footer",
        "Navigation must be an object with header and footer lists of links",
      ],
      [
        { header: nine, footer: [] },
        "navigation.header",
        "Each of header and footer can have at most 8 links",
      ],
      [{ header: [link(" ", "/a")], footer: [] }, "navigation.header.0.label", "Label is required"],
      [
        { header: [link("x".repeat(41), "/a")], footer: [] },
        "navigation.header.0.label",
        "Label must be at most 40 characters",
      ],
      [{ header: [], footer: [link("A", "")] }, "navigation.footer.0.url", "Address is required"],
      ...[
        "javascript:alert(1)",
        "//evil.example/x",
        "/\\evil.example",
        "mailto:a@b.co",
        "about",
        "https://",
        "/a b",
        `/${"a".repeat(2000)}`,
      ].map((url): [unknown, string, string] => [
        { header: [], footer: [link("A", url)] },
        "navigation.footer.0.url",
        "Address must be a path on this site (starting with /) or an http:// or https:// address",
      ]),
    ];
    for (const [body, field, message] of cases) {
      const refused = await save({ ...VALID, navigation: body }, admin.token);
      expect(refused.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(refused.body.errors?.[field], JSON.stringify(refused.body)).toBe(message);
    }
    expect((await settings()).body.navigation).toEqual(before);
  });

  it("saves both lists in order, keeps them when left out, and takes JSON text in multipart", async () => {
    const nav = {
      header: [link("About", "/pages/about"), link("Go", "/tag/go")],
      footer: [
        link("Posts", "/posts"),
        link("Source", "https://example.org/inkwell"),
        link("Feed", "/rss.xml"),
      ],
    };
    const saved = await save({ ...VALID, navigation: nav }, admin.token);
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body.settings.navigation).toEqual(nav);
    expect((await settings()).body.navigation).toEqual(nav);
    // A save that leaves it out (SPEC's fields only) changes nothing.
    expect((await save(VALID, admin.token)).body.settings.navigation).toEqual(nav);

    const multipart = await api.form<{ settings: Settings }>(
      "PUT",
      "/api/admin/settings",
      { fields: { ...VALID, navigation: JSON.stringify({ header: [], footer: [] }) } },
      { token: admin.token },
    );
    expect(multipart.status, multipart.text).toBe(200);
    expect(multipart.body.settings.navigation).toEqual({ header: [], footer: [] });
  });
});

describe("rate limit", () => {
  it("answers 429 once an address has saved too often", async () => {
    const limited = await startTestServer({ RATE_LIMITS: "on" });
    try {
      const limitedApi = client(limited.url);
      const limitedAdmin = await signInAdmin(limited, limitedApi);
      const statuses: number[] = [];
      for (let i = 0; i < 21; i += 1) {
        const reply = await limitedApi.put("/api/admin/settings", VALID, {
          token: limitedAdmin.token,
        });
        statuses.push(reply.status);
      }
      expect(statuses.slice(0, 20).every((status) => status === 200)).toBe(true);
      expect(statuses[20]).toBe(429);
    } finally {
      await limited.close();
    }
  });
});
