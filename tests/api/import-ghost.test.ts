import { writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { client } from "../support/http.js";
import { mailedLink } from "../support/mail.js";
import { allFiles, CLI_TIMEOUT, openImportSite, runCli } from "../support/porting.js";

const { server, scratch, site, counts, writeImages } = await openImportSite("ghost");
const api = () => client(server.url);
let exportFile: string;
let imagesDir: string;

const LONG_TITLE = `A title that goes on ${"and on ".repeat(40)}`;

/** Ghost's primary navigation: its home, a page, a tag, another site, and what cannot be here. */
const NAVIGATION = [
  { label: "Home", url: "/" },
  { label: "About", url: "__GHOST_URL__/about/" },
  { label: "Engineering", url: "/tag/engineering/" },
  { label: "Ghost", url: "https://ghost.org/" },
  { label: "A label far longer than the forty characters a link may have", url: "/" },
  { label: "Ada", url: "/author/ada/" },
];
/** Its secondary navigation (the footer): Portal, the feed and a post. */
const SECONDARY = [
  { label: "Sign up", url: "#/portal/signup" },
  { label: "RSS", url: "/rss/" },
  { label: "Start here", url: "__GHOST_URL__/hello-from-ghost/" },
];

/** A Ghost 5 export in its documented shape: db[0].meta and db[0].data's tables. */
function ghostExport() {
  const lexical = {
    root: {
      type: "root",
      children: [
        {
          type: "heading",
          tag: "h2",
          children: [{ type: "text", text: "Lexical heading", format: 0 }],
        },
        {
          type: "paragraph",
          children: [
            { type: "text", text: "Bold words", format: 1 },
            { type: "text", text: " and ", format: 0 },
            {
              type: "link",
              url: "https://example.com/",
              children: [{ type: "text", text: "a link" }],
            },
          ],
        },
        {
          type: "list",
          listType: "bullet",
          children: [
            { type: "listitem", children: [{ type: "text", text: "first" }] },
            { type: "listitem", children: [{ type: "text", text: "second" }] },
          ],
        },
        {
          type: "image",
          src: "__GHOST_URL__/content/images/2024/02/not-there.png",
          altText: "gone",
        },
      ],
    },
  };
  const mobiledoc = {
    version: "0.3.1",
    markups: [],
    atoms: [],
    cards: [["markdown", { markdown: "Mobiledoc *markdown* card.\n\n> quoted" }]],
    sections: [[10, 0]],
  };
  return {
    db: [
      {
        meta: { exported_on: 1714000000000, version: "5.82.0" },
        data: {
          posts: [
            {
              id: "p1",
              uuid: "u1",
              title: "Hello from Ghost",
              slug: "hello-from-ghost",
              html:
                '<h2>Intro</h2><p>Some <strong>bold</strong> text and <a href="https://ghost.org/">a link</a>.</p>' +
                '<figure class="kg-card kg-image-card"><img src="__GHOST_URL__/content/images/2024/01/photo.png" alt="A photo"><figcaption>Caption</figcaption></figure>' +
                "<script>alert(1)</script><p>After.</p>",
              lexical: null,
              mobiledoc: null,
              feature_image: "__GHOST_URL__/content/images/2024/01/cover.png",
              type: "post",
              status: "published",
              created_at: "2023-05-01T10:00:00.000Z",
              updated_at: "2023-05-07T11:00:00.000Z",
              published_at: "2023-05-06T07:08:09.000Z",
            },
            {
              id: "p2",
              title: "A Lexical draft",
              slug: "lexical-draft",
              html: null,
              lexical: JSON.stringify(lexical),
              mobiledoc: null,
              feature_image: null,
              type: "post",
              status: "draft",
              created_at: "2024-02-01T09:00:00.000Z",
              updated_at: "2024-02-02T09:00:00.000Z",
              published_at: null,
            },
            {
              id: "p3",
              title: LONG_TITLE,
              slug: "long-title",
              html: null,
              lexical: null,
              mobiledoc: JSON.stringify(mobiledoc),
              feature_image: null,
              type: "post",
              status: "published",
              created_at: "2022-01-01T00:00:00.000Z",
              updated_at: "2022-01-01T00:00:00.000Z",
              published_at: "2022-01-02T00:00:00.000Z",
            },
            {
              id: "p4",
              title: "About",
              slug: "about",
              html:
                '<p>We write. Start with <a href="__GHOST_URL__/hello-from-ghost/">the first post</a>.</p>' +
                '<figure class="kg-card kg-image-card"><img src="__GHOST_URL__/content/images/2024/01/team.png" alt="The team"></figure>',
              custom_excerpt: "Who writes here.",
              type: "page",
              status: "published",
              created_at: "2022-01-01T00:00:00.000Z",
              updated_at: "2022-01-03T00:00:00.000Z",
              published_at: "2022-01-02T00:00:00.000Z",
            },
            {
              id: "p6",
              title: "Members' corner",
              slug: "members-corner",
              html: "<p>For members.</p>",
              type: "page",
              status: "published",
              visibility: "members",
              created_at: "2022-02-01T00:00:00.000Z",
              updated_at: "2022-02-01T00:00:00.000Z",
              published_at: "2022-02-01T00:00:00.000Z",
            },
            {
              id: "p5",
              title: "Too long",
              slug: "too-long",
              html: `<p>${"word ".repeat(5000)}</p>`,
              type: "post",
              status: "published",
              created_at: "2022-03-01T00:00:00.000Z",
              updated_at: "2022-03-01T00:00:00.000Z",
              published_at: "2022-03-01T00:00:00.000Z",
            },
          ],
          tags: [
            { id: "t1", name: "#internal", slug: "hash-internal" },
            { id: "t2", name: "Engineering", slug: "engineering" },
            { id: "t3", name: "Travel", slug: "travel" },
          ],
          posts_tags: [
            { id: "pt1", post_id: "p1", tag_id: "t1", sort_order: 0 },
            { id: "pt2", post_id: "p1", tag_id: "t2", sort_order: 1 },
            { id: "pt3", post_id: "p1", tag_id: "t3", sort_order: 2 },
            { id: "pt4", post_id: "p3", tag_id: "t3", sort_order: 0 },
          ],
          users: [
            {
              id: "u1",
              name: "Ada Lovelace",
              slug: "ada",
              email: "ada@ghost.example.org",
              bio: "Writes.",
            },
            {
              id: "u2",
              name: "Grace Hopper",
              slug: "grace",
              email: "grace@ghost.example.org",
              bio: null,
            },
          ],
          posts_meta: [
            { id: "m1", post_id: "p1", feature_image_alt: "A harbour at noon" },
            { id: "m2", post_id: "p4", meta_description: "About this blog and its writers." },
          ],
          posts_authors: [
            { id: "pa1", post_id: "p1", author_id: "u1", sort_order: 0 },
            { id: "pa2", post_id: "p2", author_id: "u1", sort_order: 0 },
            { id: "pa3", post_id: "p3", author_id: "u2", sort_order: 0 },
            { id: "pa4", post_id: "p3", author_id: "u1", sort_order: 1 },
            { id: "pa5", post_id: "p5", author_id: "u1", sort_order: 0 },
            { id: "pa6", post_id: "p4", author_id: "u2", sort_order: 0 },
          ],
          settings: [
            { id: "s1", key: "title", value: "A Ghost blog" },
            { id: "s2", key: "navigation", value: JSON.stringify(NAVIGATION) },
            { id: "s3", key: "secondary_navigation", value: JSON.stringify(SECONDARY) },
          ],
        },
      },
    ],
  };
}

beforeAll(async () => {
  exportFile = path.join(scratch, "ghost.json");
  await writeFile(exportFile, JSON.stringify(ghostExport()));
  imagesDir = await writeImages("content-images", {
    "2024/01/photo.png": [900, 600],
    "2024/01/cover.png": [1400, 700],
    "2024/01/team.png": [1000, 500],
  });
});

describe("npm run import -- --ghost: refusals, nothing written", { timeout: CLI_TIMEOUT }, () => {
  it("refuses a file that is not there, a folder of images that is not there", async () => {
    const before = await counts();
    let run = await runCli("import", ["--ghost", path.join(scratch, "nowhere.json")], site);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("There is no file");
    run = await runCli(
      "import",
      ["--ghost", exportFile, "--images", path.join(scratch, "none")],
      site,
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("--images: there is no folder");
    expect(await counts()).toEqual(before);
  });

  it("refuses malformed JSON and JSON that is not a Ghost export", async () => {
    const before = await counts();
    const broken = path.join(scratch, "broken.json");
    await writeFile(broken, JSON.stringify(ghostExport()).slice(0, 500));
    let run = await runCli("import", ["--ghost", broken], site);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^The Ghost export is not valid JSON/);

    await writeFile(broken, JSON.stringify({ db: [{ data: { tags: [] } }] }));
    run = await runCli("import", ["--ghost", broken], site);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^This is not a Ghost JSON export: db\[0\]\.data\.posts/);
    expect(run.stderr).toContain("Nothing was imported.");
    expect(await counts()).toEqual(before);
  });
});

describe("npm run import -- --ghost export.json --images DIR", { timeout: CLI_TIMEOUT }, () => {
  let first: Awaited<ReturnType<typeof runCli>>;

  beforeAll(async () => {
    first = await runCli("import", ["--ghost", exportFile, "--images", imagesDir], site);
  }, 60_000);

  it("imports the posts, reports what it skipped and why", () => {
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("posts: 3");
    expect(first.stdout).toContain("new accounts: 2");
    expect(first.stdout).toContain("pages: 2");
    expect(first.stdout).not.toContain("posts only");
    expect(first.stdout).toMatch(
      /post too-long: its body is \d+ characters as Markdown; posts may have 20000/,
    );
    expect(first.stdout).toContain(
      "__GHOST_URL__/content/images/2024/02/not-there.png (post lexical-draft): not in the images folder",
    );
    expect(first.stdout).toContain("post long-title: title shortened to 200 characters");
    expect(first.stdout).toContain("post lexical-draft: no feature image, a plain one was given");
  });

  it("keeps dates and drafts, files posts under the primary tag, and converts every body format to Markdown", async () => {
    const { db } = server.app.deps;
    const posts = await db.selectFrom("posts").selectAll().orderBy("created_at").execute();
    expect(posts.map((post) => post.title)).toEqual([
      `${LONG_TITLE.trim().slice(0, 199).trimEnd()}…`,
      "Hello from Ghost",
      "A Lexical draft",
    ]);
    const [mobiledoc, html, lexical] = posts;
    expect(html).toMatchObject({
      status: "published",
      category: "Engineering",
      created_at: "2023-05-01T10:00:00.000Z",
      updated_at: "2023-05-07T11:00:00.000Z",
      published_at: "2023-05-06T07:08:09.000Z",
      body_format: "markdown",
    });
    expect(html?.description).toContain("## Intro");
    expect(html?.description).toContain("Some **bold** text and [a link](https://ghost.org/).");
    expect(html?.description).not.toContain("alert(1)");
    expect(html?.html).not.toContain("<script");
    expect(lexical).toMatchObject({
      status: "draft",
      published_at: null,
      category: "Uncategorized",
    });
    expect(lexical?.description).toContain("## Lexical heading");
    expect(lexical?.description).toContain("**Bold words** and [a link](https://example.com/)");
    expect(lexical?.description).toContain("- first\n- second");
    expect(mobiledoc).toMatchObject({
      category: "Travel",
      published_at: "2022-01-02T00:00:00.000Z",
    });
    expect(mobiledoc?.description).toBe("Mobiledoc *markdown* card.\n\n> quoted");
    expect(mobiledoc?.title).toHaveLength(200);
  });

  it("stores the images through the image pipeline and points the body at them", async () => {
    const { db } = server.app.deps;
    const post = await db
      .selectFrom("posts")
      .selectAll()
      .where("title", "=", "Hello from Ghost")
      .executeTakeFirstOrThrow();
    const bodyImage = await db
      .selectFrom("body_images")
      .selectAll()
      .where("post_id", "=", post.id)
      .executeTakeFirstOrThrow();
    expect(bodyImage).toMatchObject({ width: 900, height: 600 });
    expect(post.description).toContain(
      `![A photo](${server.url}/uploads/${bodyImage.image_key}/lg.webp)`,
    );
    expect(post.html).toContain(`src="${server.url}/uploads/${bodyImage.image_key}/lg.webp"`);
    const files = await allFiles(path.join(server.dataDir, "uploads"));
    for (const key of [post.image_key, bodyImage.image_key]) {
      for (const variant of ["sm", "md", "lg"]) {
        const file = files[`${key}/${variant}.webp`];
        expect(file?.subarray(8, 12).toString("latin1"), `${key} ${variant}`).toBe("WEBP");
      }
    }
    const page = await api().get<{ image: { url: string } }>(`/api/posts/${post.id}`);
    expect(page.status).toBe(200);
    expect(page.body.image.url).toBe(`${server.url}/uploads/${post.image_key}/lg.webp`);
    // Ghost's alt text of the feature image (posts_meta) describes the cover.
    expect(post.image_alt).toBe("A harbour at noon");
  });

  it("imports Ghost's pages as pages: a public one for everyone, one for members as a draft", async () => {
    const { db } = server.app.deps;
    const about = await api().get<{
      _id: string;
      description: string;
      html: string;
      metaDescription: string | null;
      author: { username: string } | null;
      status: string;
      createdAt: string;
      publishedAt: string;
      updatedAt: string;
    }>("/api/pages/about");
    expect(about.status, about.text).toBe(200);
    expect(about.body).toMatchObject({
      status: "published",
      // posts_meta's meta description before the custom excerpt.
      metaDescription: "About this blog and its writers.",
      author: { username: "GraceHopper" },
      createdAt: "2022-01-01T00:00:00.000Z",
      publishedAt: "2022-01-02T00:00:00.000Z",
      updatedAt: "2022-01-03T00:00:00.000Z",
    });
    const hello = await db
      .selectFrom("posts")
      .select("id")
      .where("title", "=", "Hello from Ghost")
      .executeTakeFirstOrThrow();
    expect(about.body.description).toContain(`[the first post](/posts/details/${hello.id})`);
    const image = await db
      .selectFrom("body_images")
      .selectAll()
      .where("page_id", "=", about.body._id)
      .executeTakeFirstOrThrow();
    expect(image).toMatchObject({ width: 1000, height: 500, post_id: null });
    expect(about.body.html).toContain(`src="${server.url}/uploads/${image.image_key}/lg.webp"`);

    // Nothing the source hid becomes public: the members' page waits as a draft, named.
    expect((await api().get("/api/pages/members-corner")).status).toBe(404);
    expect(first.stdout).toContain(`  page members-corner "Members' corner": members only`);
    const posts = await db.selectFrom("posts").select("title").execute();
    expect(posts.map((post) => post.title)).not.toContain("About");
  });

  it("makes Ghost's navigation the site's, its links led to what was imported", async () => {
    const hello = await server.app.deps.db
      .selectFrom("posts")
      .select("id")
      .where("title", "=", "Hello from Ghost")
      .executeTakeFirstOrThrow();
    const settings = await api().get<{ navigation: unknown }>("/api/settings");
    expect(settings.status).toBe(200);
    expect(settings.body.navigation).toEqual({
      header: [
        { label: "Home", url: "/" },
        { label: "About", url: "/pages/about" },
        { label: "Engineering", url: "/tags/engineering" },
        { label: "Ghost", url: "https://ghost.org/" },
      ],
      footer: [
        { label: "RSS", url: "/rss.xml" },
        { label: "Start here", url: `/posts/details/${hello.id}` },
      ],
    });
    for (const line of [
      "navigation: Ghost's, 4 header and 2 footer link(s) (this site had none saved)",
      'header link "A label far longer than the forty characters a link may have" (/): Label must be at most 40 characters',
      'header link "Ada" (/author/ada/): a path of the old site that this site does not have',
      "footer link \"Sign up\" (#/portal/signup): Ghost's Portal (members' sign-up and account) has no equivalent here",
    ])
      expect(first.stdout).toContain(line);
  });

  it("makes authors accounts that sign in only after resetting their password", async () => {
    const { db } = server.app.deps;
    const ada = await db
      .selectFrom("users")
      .selectAll()
      .where("email_key", "=", "ada@ghost.example.org")
      .executeTakeFirstOrThrow();
    expect(ada).toMatchObject({
      username: "AdaLovelace",
      is_verified: 0,
      is_admin: 0,
      bio: "Writes.",
    });
    expect(ada.password_hash).toMatch(/^\$argon2id\$/);
    const guess = await api().post("/api/auth/login", {
      email: "ada@ghost.example.org",
      password: "Secret-Pass1!",
    });
    expect(guess.status).not.toBe(200);

    const sent = await api().post("/api/password/reset-password-link", {
      email: "ada@ghost.example.org",
    });
    expect(sent.status).toBe(200);
    const link = await mailedLink(server.dataDir, "ada@ghost.example.org", "reset");
    const reset = await api().post(`/api/password${link.pathname}`, { password: "N3w!password" });
    expect(reset.status, reset.text).toBe(200);
    const login = await api().post("/api/auth/login", {
      email: "ada@ghost.example.org",
      password: "N3w!password",
    });
    expect(login.status, login.text).toBe(200);
  });

  it("adds nothing when run again: every post is skipped as already imported", async () => {
    const before = await counts();
    const again = await runCli("import", ["--ghost", exportFile, "--images", imagesDir], site);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain("posts: 0");
    expect(again.stdout).toContain("new accounts: 0");
    expect(again.stdout).toContain("post hello-from-ghost: already imported");
    expect(again.stdout).toContain("pages: 0");
    expect(again.stdout).toContain("page about: already imported");
    // The site's navigation is saved now: an import never changes it.
    expect(again.stdout).toContain(
      "navigation: not imported (this site's navigation was saved already",
    );
    expect(await counts()).toEqual(before);
    const pages = await server.app.deps.db.selectFrom("pages").select("slug").execute();
    expect(pages.map((page) => page.slug).sort()).toEqual(["about", "members-corner"]);
  });
});

describe(
  "npm run import -- --ghost: what the blog did not show to everyone",
  { timeout: CLI_TIMEOUT },
  () => {
    let run: Awaited<ReturnType<typeof runCli>>;

    /** A post of Ada's with the fields that decide who may read it. */
    const post = (id: string, title: string, fields: { status: string; visibility?: string }) => ({
      id,
      title,
      slug: id,
      html: `<p>The body of ${title}.</p>`,
      type: "post",
      created_at: `2021-07-0${id.slice(-1)}T08:00:00.000Z`,
      updated_at: `2021-07-0${id.slice(-1)}T08:00:00.000Z`,
      published_at: fields.status === "published" ? `2021-07-0${id.slice(-1)}T09:00:00.000Z` : null,
      ...fields,
    });

    beforeAll(async () => {
      const posts = [
        post("h1", "For members", { status: "published", visibility: "members" }),
        post("h2", "For paying members", { status: "published", visibility: "paid" }),
        post("h3", "For some tiers", { status: "published", visibility: "tiers" }),
        post("h4", "Due next week", { status: "scheduled", visibility: "public" }),
        post("h5", "Only in the newsletter", { status: "sent", visibility: "public" }),
        post("h6", "For everyone", { status: "published", visibility: "public" }),
        post("h7", "Before visibility", { status: "published" }),
      ];
      const file = path.join(scratch, "hidden.json");
      await writeFile(
        file,
        JSON.stringify({
          db: [
            {
              meta: { exported_on: 1714000000000, version: "5.82.0" },
              data: {
                posts,
                users: [{ id: "u1", name: "Ada Lovelace", email: "ada@ghost.example.org" }],
                posts_authors: posts.map(({ id }) => ({ post_id: id, author_id: "u1" })),
              },
            },
          ],
        }),
      );
      run = await runCli("import", ["--ghost", file], site);
    }, 60_000);

    it("imports posts for members only, scheduled or sent by e-mail only as drafts", async () => {
      expect(run.code, run.stderr).toBe(0);
      const { db } = server.app.deps;
      const rows = await db
        .selectFrom("posts")
        .select(["id", "title", "status", "published_at"])
        .where("created_at", "like", "2021-07-%")
        .orderBy("created_at")
        .execute();
      expect(rows.map((row) => [row.title, row.status])).toEqual([
        ["For members", "draft"],
        ["For paying members", "draft"],
        ["For some tiers", "draft"],
        ["Due next week", "draft"],
        ["Only in the newsletter", "draft"],
        ["For everyone", "published"],
        ["Before visibility", "published"],
      ]);
      const hidden = rows.filter((row) => row.status === "draft");
      for (const row of hidden) {
        expect(row.published_at, row.title).toBeNull();
        expect((await api().get(`/api/posts/${row.id}`)).status, row.title).toBe(404);
      }
    });

    it("lists each of them by its title and why", () => {
      expect(run.stdout).toContain("posts: 7");
      expect(run.stdout).toContain(
        [
          "Imported as drafts 5:",
          '  post h1 "For members": members only',
          '  post h2 "For paying members": paid members only',
          '  post h3 "For some tiers": members of some tiers only',
          '  post h4 "Due next week": scheduled',
          '  post h5 "Only in the newsletter": sent by e-mail only',
        ].join("\n"),
      );
    });
  },
);
