import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { pngImage } from "../support/images.js";
import { CLI_TIMEOUT, openImportSite, runCli, type CliRun } from "../support/porting.js";

/**
 * Imports that keep everything (issue 34): fixtures built like the files people bring (the
 * WordPress theme unit test export, Ghost's exports from 0.x to 5), each loss named in the report.
 */
const { server, scratch, site, imported: post } = await openImportSite("fidelity");

// --- WordPress -----------------------------------------------------------------------------------

const cdata = (text: string) => `<![CDATA[${text}]]>`;
const OLD_SITE = "https://wpthemetestdata.example.com";
const FILES = "https://wpthemetestdata.files.wordpress.com";

function item(fields: {
  id: number;
  title: string;
  slug: string;
  content: string;
  status?: string;
  type?: string;
  date?: string;
  terms?: string;
  extra?: string;
}) {
  return `<item>
    <title>${cdata(fields.title)}</title>
    <dc:creator>${cdata("themedemos")}</dc:creator>
    <content:encoded>${cdata(fields.content)}</content:encoded>
    <wp:post_id>${String(fields.id)}</wp:post_id>
    <wp:post_date_gmt>${cdata(fields.date ?? `2012-01-${String(fields.id % 28 || 1).padStart(2, "0")} 10:00:00`)}</wp:post_date_gmt>
    <wp:post_name>${cdata(fields.slug)}</wp:post_name>
    <wp:status>${cdata(fields.status ?? "publish")}</wp:status>
    <wp:post_type>${cdata(fields.type ?? "post")}</wp:post_type>
    <wp:post_password>${cdata("")}</wp:post_password>
    ${fields.terms ?? ""}
    ${fields.extra ?? ""}
  </item>`;
}

function attachment(id: number, parent: number, file: string, alt: string) {
  return `<item>
    <title>${cdata(file.split("/").pop() ?? file)}</title>
    <wp:post_id>${String(id)}</wp:post_id>
    <wp:post_parent>${String(parent)}</wp:post_parent>
    <wp:post_type>${cdata("attachment")}</wp:post_type>
    <wp:status>${cdata("inherit")}</wp:status>
    <wp:attachment_url>${cdata(`${FILES}/${file}`)}</wp:attachment_url>
    <wp:postmeta><wp:meta_key>${cdata("_wp_attached_file")}</wp:meta_key><wp:meta_value>${cdata(file)}</wp:meta_value></wp:postmeta>
    <wp:postmeta><wp:meta_key>${cdata("_wp_attachment_image_alt")}</wp:meta_key><wp:meta_value>${cdata(alt)}</wp:meta_value></wp:postmeta>
  </item>`;
}

const term = (domain: string, name: string) =>
  `<category domain="${domain}" nicename="${name.toLowerCase().replace(/\W+/g, "-")}">${cdata(name)}</category>`;

const NESTED_LISTS = `Nested and mixed lists are an interesting beast. It's a corner case to make sure that
<ul>
\t<li>Lists within lists do not break the ordered list numbering order</li>
\t<li>Your list styles go deep enough.</li>
</ul>
<h3>Ordered - Unordered - Ordered</h3>
<ol>
\t<li>ordered item</li>
\t<li>ordered item
<ul>
\t<li><strong>unordered</strong></li>
\t<li><strong>unordered</strong>
<ol>
\t<li>ordered item</li>
\t<li>ordered item</li>
</ol>
</li>
</ul>
</li>
\t<li>ordered item</li>
\t<li>ordered item</li>
</ol>`;

const HTML_TAGS = `<strong>Headings</strong> come first.

A second paragraph, with <sub>sub</sub> and <sup>super</sup> script, <del>deleted</del>, <s>struck</s> and <strike>striken</strike> text, and an <abbr title="Hypertext Markup Language">HTML</abbr> abbreviation.
A line break above.

<p>A paragraph WordPress stored as an element.</p>

The last paragraph links to the <a href="${OLD_SITE}/about/">about page</a>, the <a href="${OLD_SITE}/2012/01/02/nested-lists/">lists post</a>, the <a href="${OLD_SITE}/category/nested-lists/">category of that name</a>, an <a href="${OLD_SITE}/empty/">empty post</a> and a <a href="javascript:alert(1)">script</a>.
<dl>
<dt>Definition List Title</dt>
<dd>This is a definition list division.</dd>
</dl>`;

const SHORTCODES = `[caption id="attachment_201" align="alignnone" width="300"]<a href="${FILES}/2019/05/boat.jpg"><img src="${FILES}/2019/05/boat-300x200.jpg" alt="A boat" width="300" height="200" /></a> A boat at the quay[/caption]

[gallery ids="202,203"]

[audio mp3="${FILES}/2019/05/song.mp3\\"][/audio]

[contact-form-7 id="5" title="Contact"]

[embed]http://x.example/%E0%A4%A[/embed]

An image from elsewhere: <img src="https://elsewhere.example/pic.png" alt="Elsewhere" />`;

function wordpressExport() {
  const manyCategories = ["Alpha", "Beta", "Gamma", "Delta", "Epsilon", "Zeta", "Eta"];
  return `<?xml version="1.0" encoding="UTF-8" ?>
<rss version="2.0"
  xmlns:content="http://purl.org/rss/1.0/modules/content/"
  xmlns:dc="http://purl.org/dc/elements/1.1/"
  xmlns:wp="http://wordpress.org/export/1.2/">
<channel>
  <title>Theme Unit Test</title>
  <link>${OLD_SITE}</link>
  <wp:author>
    <wp:author_login>${cdata("themedemos")}</wp:author_login>
    <wp:author_email>${cdata("themedemos@wp.example.com")}</wp:author_email>
    <wp:author_display_name>${cdata("Theme Buster")}</wp:author_display_name>
  </wp:author>
  ${item({
    id: 2,
    title: "Edge Case: Nested And Mixed Lists",
    slug: "nested-lists",
    content: NESTED_LISTS,
    terms: [
      term("category", "Edge Case"),
      term("post_tag", "Edge Case"),
      term("post_tag", "lists"),
      term("post_tag", "x"),
      term("post_tag", "a tag far too long to be one tag here at all"),
    ].join("\n"),
    extra: `<wp:is_sticky>1</wp:is_sticky>`,
  })}
  ${item({
    id: 3,
    title: "Markup: HTML Tags <em>and</em> Formatting",
    slug: "html-tags",
    content: HTML_TAGS,
    terms: manyCategories.map((name) => term("category", name)).join("\n"),
    extra: `<wp:comment>
      <wp:comment_author>${cdata("Reader")}</wp:comment_author>
      <wp:comment_author_email>${cdata("reader@example.net")}</wp:comment_author_email>
      <wp:comment_date_gmt>2012-02-01 10:00:00</wp:comment_date_gmt>
      <wp:comment_content>${cdata('See <a href="https://example.org/more">this page</a>.\n\nAnd <img src="https://example.org/a.png" alt="a chart" />')}</wp:comment_content>
      <wp:comment_approved>${cdata("1")}</wp:comment_approved>
      <wp:comment_type>${cdata("comment")}</wp:comment_type>
    </wp:comment>`,
  })}
  ${item({ id: 4, title: "Media: Shortcodes", slug: "shortcodes", content: SHORTCODES })}
  ${item({
    id: 5,
    title: "Scheduled for later",
    slug: "later",
    content: "<p>Not yet.</p>",
    status: "future",
    date: "2030-01-01 00:00:00",
    terms: term("category", "Future Things"),
  })}
  ${item({ id: 6, title: "About", slug: "about", content: "<p>A page.</p>", type: "page" })}
  ${item({
    id: 8,
    title: "Page with comments",
    slug: "page-with-comments",
    content: "<p>Comments are on this page.</p>",
    type: "page",
    extra: `<wp:comment>
      <wp:comment_author>${cdata("Commenter")}</wp:comment_author>
      <wp:comment_date_gmt>2012-02-02 10:00:00</wp:comment_date_gmt>
      <wp:comment_content>${cdata("A comment on a page.")}</wp:comment_content>
      <wp:comment_approved>${cdata("1")}</wp:comment_approved>
    </wp:comment>`,
  })}
  ${item({
    id: 9,
    title: "About.",
    // A slug of another script (percent-encoded, as WordPress keeps it) is no slug here.
    slug: "%e3%81%82",
    content: "<p>About the tests, in <strong>bold</strong>.</p>",
    type: "page",
    status: "private",
  })}
  ${item({ id: 7, title: "Empty", slug: "empty", content: "" })}
  ${attachment(201, 4, "2019/05/boat.jpg", "A boat")}
  ${attachment(202, 4, "2019/05/first.png", "First of the gallery")}
  ${attachment(203, 4, "2019/05/second.png", "")}
</channel>
</rss>
`;
}

describe(
  "npm run import -- --wordpress: what the theme unit test breaks",
  { timeout: CLI_TIMEOUT },
  () => {
    let run: CliRun;

    beforeAll(async () => {
      const file = path.join(scratch, "wordpress.xml");
      await writeFile(file, wordpressExport());
      const uploads = path.join(scratch, "uploads");
      await mkdir(path.join(uploads, "2019", "05"), { recursive: true });
      // The original only: the body's resized copy (boat-300x200.jpg) is found through it.
      await writeFile(path.join(uploads, "2019", "05", "boat.jpg"), await pngImage(600, 400));
      await writeFile(path.join(uploads, "2019", "05", "first.png"), await pngImage(320, 200));
      await writeFile(path.join(uploads, "2019", "05", "second.png"), await pngImage(320, 240));
      run = await runCli("import", ["--wordpress", file, "--images", uploads], site);
    }, 60_000);

    it("reports pages, sticky posts, extra categories, tags that cannot be, and shortcodes", () => {
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      for (const line of [
        "posts: 4",
        "pages: 3",
        "1 comment(s) on page page-with-comments: pages have no comments here",
        '  page %e3%81%82 "About.": private',
        "post nested-lists: was sticky on WordPress; this site has no pinned posts, it is listed by its date",
        "post html-tags: also in the categories Beta, Gamma, Delta, Epsilon, Zeta, Eta (a post has one category here): kept as tags where they fit",
        "post html-tags: 1 tag(s) not kept (a post has at most 5 here): Eta",
        'post nested-lists: tag(s) not kept (a tag has 2 to 30 letters or digits): "x", "a tag far too long to be one tag here at all"',
        "post shortcodes: the shortcode [contact-form-7] has no equivalent here and was kept as text",
        "https://elsewhere.example/pic.png (post shortcodes): on another site: shown as a link to it",
      ])
        expect(run.stdout).toContain(line);
    });

    it("keeps tags, titles without their HTML, and a category's date from its first post", async () => {
      const lists = await post("Edge Case: Nested And Mixed Lists");
      expect(lists).toMatchObject({ category: "Edge Case", tags: "edge-case lists" });
      const tags = await post("Markup: HTML Tags and Formatting");
      expect(tags).toMatchObject({ category: "Alpha", tags: "beta gamma delta epsilon zeta" });
      const rows = await server.app.deps.db
        .selectFrom("post_tags")
        .select("tag")
        .where("post_id", "=", tags.id)
        .orderBy("tag")
        .execute();
      expect(rows.map((row) => row.tag)).toEqual(["beta", "delta", "epsilon", "gamma", "zeta"]);
      const future = await server.app.deps.db
        .selectFrom("categories")
        .select("created_at")
        .where("title", "=", "Future Things")
        .executeTakeFirstOrThrow();
      expect(future.created_at < new Date().toISOString()).toBe(true);
    });

    it("keeps lists tight and numbered from 1, paragraphs apart, and inline tags' meaning", async () => {
      const lists = await post("Edge Case: Nested And Mixed Lists");
      expect(lists.html).not.toContain("<ol start");
      expect(lists.html).not.toMatch(/<li>\s*<p>/);
      expect(lists.html).toMatch(/<p>Nested and mixed lists[^<]*<\/p>\s*<ul>\s*<li>Lists within/);
      expect(lists.description).toMatch(/^1\. +ordered item$/m);

      const tags = await post("Markup: HTML Tags and Formatting");
      expect(tags.html.match(/<p>/g)).toHaveLength(4);
      for (const kept of [
        "<sub>sub</sub>",
        "<sup>super</sup>",
        "<s>deleted</s>",
        "<s>struck</s>",
        "<s>striken</s>",
        '<abbr title="Hypertext Markup Language">HTML</abbr>',
        "<dt>Definition List Title</dt>",
        "<dd>This is a definition list division.</dd>",
      ])
        expect(tags.html).toContain(kept);
    });

    it("imports the test's pages as pages, each with a slug of its own", async () => {
      const pages = await server.app.deps.db
        .selectFrom("pages")
        .select(["slug", "title", "status", "description"])
        .orderBy("slug")
        .execute();
      expect(pages).toEqual([
        { slug: "about", title: "About", status: "published", description: "A page." },
        {
          // Its title's slug, which another page has: numbered.
          slug: "about-2",
          title: "About.",
          status: "draft",
          description: "About the tests, in **bold**.",
        },
        {
          slug: "page-with-comments",
          title: "Page with comments",
          status: "published",
          description: "Comments are on this page.",
        },
      ]);
      // A post's link to the old site's page leads to the page here.
      const tags = await post("Markup: HTML Tags and Formatting");
      expect(tags.description).toContain("[about page](/pages/about)");
      expect(run.stdout).not.toContain("/about/");
    });

    it("leads links to imported posts here, and keeps comments as plain text", async () => {
      const lists = await post("Edge Case: Nested And Mixed Lists");
      const tags = await post("Markup: HTML Tags and Formatting");
      expect(tags.description).toContain(`[lists post](/posts/details/${lists.id})`);
      // A category's page is no post, whatever its last word; a script link is its text.
      expect(tags.description).toContain(
        `[category of that name](${OLD_SITE}/category/nested-lists/)`,
      );
      expect(tags.description).toContain("and a script.");
      expect(run.stdout).toContain("post empty: it has no body");
      expect(run.stdout).toContain(
        "post html-tags: its link to post empty leads nowhere (empty was not imported)",
      );
      const comments = await server.app.deps.db
        .selectFrom("comments")
        .select("text")
        .where("post_id", "=", tags.id)
        .execute();
      expect(comments).toEqual([
        {
          text: "See this page (https://example.org/more).\n\nAnd a chart https://example.org/a.png",
        },
      ]);
    });

    it("turns captions, galleries and audio into what they showed, with the blog's own images", async () => {
      const media = await post("Media: Shortcodes");
      const images = await server.app.deps.db
        .selectFrom("body_images")
        .select(["width", "height"])
        .where("post_id", "=", media.id)
        .orderBy("width")
        .orderBy("height")
        .execute();
      expect(images).toEqual([
        { width: 320, height: 200 },
        { width: 320, height: 240 },
        { width: 600, height: 400 },
      ]);
      expect(media.description).toMatch(
        /\[!\[A boat\]\([^)]+\/uploads\/[^)]+\)\]\([^)]+\)\n\n\*A boat at the quay\*/,
      );
      expect(media.description).toContain("![First of the gallery](");
      expect(media.description).toContain(`[song.mp3](${FILES}/2019/05/song.mp3)`);
      expect(media.description).not.toContain("[gallery");
      expect(media.description).not.toContain("%5C");
      // A plugin's shortcode stays as the text it was (escaped: not a link here).
      expect(media.description).toContain('\\[contact-form-7 id="5" title="Contact"\\]');
    });
  },
);

// --- Ghost ---------------------------------------------------------------------------------------

/** A Ghost 0.x export: the tables at the top, numeric ids, Markdown bodies, one unreadable row each. */
function ghostZero() {
  return {
    meta: { exported_on: 1388534400000, version: "003" },
    data: {
      posts: [
        {
          id: 1,
          title: "Old markdown",
          slug: "old-markdown",
          markdown: "Some *text* from 2014.",
          image: null,
          page: 0,
          featured: 1,
          status: "published",
          author_id: 1,
          created_at: 1388534400000,
          published_at: 1388534400000,
        },
        {
          id: 2,
          title: "Old page",
          slug: "old-page",
          markdown: "A page.",
          page: 1,
          author_id: 1,
          created_at: 1388534400000,
        },
        {
          id: 3,
          title: "By a lost author",
          slug: "lost-author",
          markdown: "Written by someone whose row is gone.",
          status: "draft",
          author_id: 2,
          created_at: "2014-02-01 10:00:00",
        },
        { title: "No id", slug: "no-id", markdown: "Cannot be linked." },
      ],
      users: [
        { id: 1, name: "Old Owner", slug: "owner", email: "owner@old.example" },
        { name: "Nameless Row", email: "lost@old.example" },
      ],
      tags: [{ id: 1, name: "Archive" }],
      posts_tags: [{ post_id: 1, tag_id: 1 }],
    },
  };
}

function ghostFourAndFive() {
  const mobiledoc = {
    version: "0.3.1",
    markups: [
      ["em"],
      ["a", ["href", "__GHOST_URL__/welcome/"]],
      ["a", ["href", "__GHOST_URL__/about/"]],
      ["a", ["href", "javascript:alert(1)"]],
    ],
    atoms: [],
    cards: [
      [
        "image",
        {
          src: "https://images.example/boat.png",
          alt: "A boat",
          caption: "A boat <em>at rest</em>",
        },
      ],
      ["code", { code: "echo hi", language: "sh", caption: "The script" }],
      [
        "markdown",
        {
          markdown:
            "Kept words.\n\n<script>alert(1)</script>\n\nMore kept words, [a trap](java&#115;cript:alert(2)).",
        },
      ],
      ["product", { productTitle: "A thing" }],
    ],
    sections: [
      [
        1,
        "p",
        [
          [0, [0], 1, "emphasis "],
          [0, [], 0, "then text, "],
          [0, [1], 1, "the welcome post"],
          [0, [], 0, " and "],
          [0, [2], 1, "about"],
          [0, [], 0, ", "],
          [0, [3], 1, "a script"],
        ],
      ],
      [10, 0],
      [10, 1],
      [10, 2],
      [10, 3],
    ],
  };
  const lexical = {
    root: {
      type: "root",
      children: [
        {
          type: "extended-heading",
          tag: "h2",
          children: [{ type: "extended-text", text: "Five", format: 0 }],
        },
        {
          type: "paragraph",
          children: [
            { type: "extended-text", text: "Bold and spaced ", format: 1 },
            { type: "extended-text", text: "then 2 * 3 plain, H", format: 0 },
            { type: "extended-text", text: "2", format: 32 },
            { type: "extended-text", text: "O.", format: 0 },
          ],
        },
        {
          type: "list",
          listType: "number",
          children: [
            { type: "listitem", children: [{ type: "extended-text", text: "one" }] },
            {
              type: "listitem",
              children: [
                {
                  type: "list",
                  listType: "bullet",
                  children: [
                    { type: "listitem", children: [{ type: "extended-text", text: "inner" }] },
                  ],
                },
              ],
            },
            { type: "listitem", children: [{ type: "extended-text", text: "two" }] },
          ],
        },
        {
          type: "image",
          src: "https://images.example/sea.png",
          altText: "The sea",
          caption: "Calm <b>sea</b>",
        },
        { type: "codeblock", code: "let x = 1;", language: "js", caption: "A line" },
        { type: "callout", calloutEmoji: "💡", calloutText: "<p>A tip.</p>" },
        // A reference is no script: the card stays as written, with no note.
        { type: "markdown", markdown: "It&#8217;s *kept* as written." },
        { type: "signup", header: "Subscribe" },
      ],
    },
  };
  const row = (id: string, title: string, slug: string, body: Record<string, string>) => ({
    id,
    title,
    slug,
    html: null,
    lexical: null,
    mobiledoc: null,
    ...body,
    type: "post",
    status: "published",
    created_at: "2023-01-01T00:00:00.000Z",
    updated_at: "2023-01-02T00:00:00.000Z",
    published_at: "2023-01-01T00:00:00.000Z",
  });
  return {
    db: [
      {
        meta: { version: "5.0.0" },
        data: {
          posts: [
            row("g1", "Welcome", "welcome", { html: "<p>Hello.</p>" }),
            row("g2", "Mobiledoc cards", "cards", { mobiledoc: JSON.stringify(mobiledoc) }),
            row("g3", "Lexical five", "lexical-five", { lexical: JSON.stringify(lexical) }),
          ],
          users: [{ id: "u1", name: "Modern Writer", email: "modern@ghost.example" }],
          posts_authors: ["g1", "g2", "g3"].map((post) => ({ post_id: post, author_id: "u1" })),
        },
      },
    ],
  };
}

describe("npm run import -- --ghost: from 0.x to 5", { timeout: CLI_TIMEOUT }, () => {
  const runs: Record<string, CliRun> = {};

  beforeAll(async () => {
    const files = {
      zero: ghostZero(),
      wrapped: {
        data: {
          meta: { version: "4.0.0" },
          data: {
            posts: [
              {
                id: "w1",
                title: "Wrapped",
                slug: "wrapped",
                html: "<p>Inside.</p>",
                status: "published",
                created_at: "2022-01-01T00:00:00.000Z",
                author_id: "wu",
              },
            ],
            users: [{ id: "wu", name: "Wrapped Writer", email: "wrapped@ghost.example" }],
          },
        },
      },
      modern: ghostFourAndFive(),
    };
    for (const [name, content] of Object.entries(files)) {
      const file = path.join(scratch, `${name}.json`);
      await writeFile(file, JSON.stringify(content));
      runs[name] = await runCli("import", ["--ghost", file], site);
    }
  }, 90_000);

  it("imports what an old export can give, each row it cannot named in words", async () => {
    const zero = runs.zero;
    expect(zero?.stderr).toBe("");
    expect(zero?.code).toBe(0);
    expect(zero?.stdout).toContain("posts: 2");
    expect(zero?.stdout).toContain("users row 2 (Nameless Row): its id is missing or unusable");
    expect(zero?.stdout).toContain("posts row 4 (no-id): its id is missing or unusable");
    expect(zero?.stdout).toContain("pages: 1");
    const oldPage = await server.app.deps.db
      .selectFrom("pages")
      .selectAll()
      .where("slug", "=", "old-page")
      .executeTakeFirstOrThrow();
    // Ghost 0.x's page without a status is a draft; its author is the export's.
    expect(oldPage).toMatchObject({
      title: "Old page",
      status: "draft",
      description: "A page.",
      created_at: "2014-01-01T00:00:00.000Z",
    });
    expect(oldPage.author_id).not.toBeNull();
    expect(zero?.stdout).toContain(
      "post lost-author: its author 2 is not in the export: it was given to Old Owner",
    );
    expect(zero?.stdout).toContain(
      "post old-markdown: was featured on Ghost; this site has no featured posts, it is listed by its date",
    );
    const old = await post("Old markdown");
    expect(old).toMatchObject({
      category: "Archive",
      status: "published",
      created_at: "2014-01-01T00:00:00.000Z",
      updated_at: "2014-01-01T00:00:00.000Z",
    });
    expect(old.html).toContain("<em>text</em>");
    expect((await post("By a lost author")).status).toBe("draft");

    expect(runs.wrapped?.code, runs.wrapped?.stderr).toBe(0);
    expect((await post("Wrapped")).description).toBe("Inside.");
  });

  it("keeps mobiledoc's captions, emphasis and links, and leaves out only a card's script", async () => {
    const modern = runs.modern;
    expect(modern?.stderr).toBe("");
    expect(modern?.code).toBe(0);
    expect(modern?.stdout).toContain("posts: 3");
    const welcome = await post("Welcome");
    const cards = await post("Mobiledoc cards");
    expect(cards.description).toContain(
      `*emphasis* then text, [the welcome post](/posts/details/${welcome.id}) and [about](/about/), a script`,
    );
    expect(cards.description).toContain(
      "![A boat](https://images.example/boat.png)\n\n*A boat *at rest**",
    );
    expect(cards.description).toContain("```sh\necho hi\n```\n\n*The script*");
    expect(cards.description).toContain("Kept words.\n\nMore kept words, a trap.");
    expect(cards.description).not.toContain("alert");
    expect(cards.description).not.toContain("java");
    for (const note of [
      "post cards: links to the old site's pages that were not imported lead to paths this site does not have: /about/",
      "post cards: a script in the post was left out (the rest of it kept)",
      "post cards: a product card has no equivalent here and was left out",
    ])
      expect(modern?.stdout).toContain(note);
  });

  it("reads Ghost 5's Lexical with Ghost's own nodes and cards", async () => {
    const five = await post("Lexical five");
    expect(five.description).toBe(
      [
        "## Five",
        "**Bold and spaced** then 2 \\* 3 plain, H<sub>2</sub>O.",
        "1. one\n   - inner\n2. two",
        "![The sea](https://images.example/sea.png)\n\n*Calm **sea***",
        "```js\nlet x = 1;\n```\n\n*A line*",
        "> 💡 A tip.",
        "It&#8217;s *kept* as written.",
      ].join("\n\n"),
    );
    expect(five.html).toContain("<li>one\n<ul>\n<li>inner</li>");
    expect(five.html).toContain("H<sub>2</sub>O.");
    expect(runs.modern?.stdout).toContain(
      "post lexical-five: a signup card has no equivalent here and was left out",
    );
    expect(runs.modern?.stdout).not.toContain("post lexical-five: a script");
  });
});
