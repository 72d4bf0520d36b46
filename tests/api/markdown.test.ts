import { describe, expect, it } from "vitest";
import { POST_DESCRIPTION_MAX } from "../../contract/limits.js";
import { newId } from "../../core/shared/ids.js";
import { migrateTo, migrateToLatest } from "../../db/connect.js";
import { type TestUser } from "../support/factories.js";
import type { Reply } from "../support/http.js";
import { pngImage, uploadedFiles } from "../support/images.js";
import { addPost, postRows, type PostDetail, type PostSummary } from "../support/post-fixtures.js";
import { openTestSite } from "../support/site.js";

// Issue 16, parts 1 and 5 (DESIGN.md 9, decision 010): Markdown bodies, rendered and sanitized
// when written, with an excerpt and a reading time on every post object.

const {
  server,
  api,
  admin,
  users: { writer, other },
} = await openTestSite({ users: ["writer", "other"], categories: ["Code"] });

const SCRIPT_MESSAGE = "Description must not contain a script or a javascript: link";

const createPost = async (author: TestUser, description: string) =>
  api.form<PostDetail>(
    "POST",
    "/api/posts",
    {
      fields: { title: "A post", category: "Code", description },
      file: { bytes: await pngImage(), filename: "photo.png" },
    },
    { token: author.token },
  );

const updatePost = (author: TestUser, id: string, description: string) =>
  api.put<PostDetail>(
    `/api/posts/${id}`,
    { title: "A post", category: "Code", description },
    { token: author.token },
  );

const getPost = (id: string) => api.get<PostDetail>(`/api/posts/${id}`);

const htmlOf = async (description: string, author = writer) =>
  (await addPost(api, author, { category: "Code", description })).html;

function expectRefused(reply: Reply, message: string) {
  expect(reply.status, reply.text).toBe(400);
  expect(reply.body).toEqual({ message, errors: { description: message } });
}

/** Hostile Markdown that must be refused, whichever way the script is spelled. */
const SCRIPTS = [
  "<script>alert(1)</script>",
  "Text, then </script><script>alert(1)</script>",
  "A <img src=x onerror=alert(1)> image",
  "<div onclick='alert(1)'>click</div>",
  '<a href="javascript:alert(1)">raw link</a>',
  "[a link](javascript:alert(1))",
  "[a link](JaVaScRiPt:alert(1))",
  "[a link](jav&#x61;script:alert(1))",
  "[a link](java%0ascript:alert(1))",
  "[a link](vbscript:msgbox(1))",
  "<javascript:alert(1)>",
  "![an image](javascript:alert(1))",
  "[a link][ref]\n\n[ref]: javascript:alert(1)",
];

describe("a Markdown body that is refused", () => {
  it.each(SCRIPTS)("on create, with nothing stored: %j", async (description) => {
    const posts = await postRows(server);
    const files = await uploadedFiles(server);
    expectRefused(await createPost(writer, description), SCRIPT_MESSAGE);
    expect(await postRows(server)).toBe(posts);
    expect(await uploadedFiles(server)).toEqual(files);
  });

  it("on create when over the limit, with nothing stored", async () => {
    const posts = await postRows(server);
    const reply = await createPost(writer, `# Long\n\n${"word ".repeat(POST_DESCRIPTION_MAX)}`);
    expectRefused(
      reply,
      `Description must be at most ${String(POST_DESCRIPTION_MAX)} characters long`,
    );
    expect(await postRows(server)).toBe(posts);
  });

  it.each(SCRIPTS)("on update, with the post unchanged: %j", async (description) => {
    const post = await addPost(api, writer, { category: "Code", description: "**Kept**" });
    expectRefused(await updatePost(writer, post._id, description), SCRIPT_MESSAGE);
    const stored = (await getPost(post._id)).body;
    expect(stored.description).toBe("**Kept**");
    expect(stored.html).toBe(post.html);
  });

  it("on update, answering 401 and 403 before looking at the body", async () => {
    const post = await addPost(api, writer, { category: "Code", description: "Mine" });
    const body = { title: "x", category: "Code", description: "<script>alert(1)</script>" };
    expect((await api.put(`/api/posts/${post._id}`, body)).status).toBe(401);
    expect((await api.put(`/api/posts/${post._id}`, body, { token: other.token })).status).toBe(
      403,
    );
  });
});

describe("a Markdown body that is stored", () => {
  it("keeps `description` as written and adds html, excerpt and readingMinutes", async () => {
    const description = [
      "# Getting started",
      "",
      "Some *emphasis*, **strong** words, ~~struck~~ and `inline code`.",
      "",
      "## Getting started",
      "",
      "- [ ] to do",
      "- [x] done",
      "",
      "| Name | Count |",
      "|:-----|------:|",
      "| a    | 1     |",
      "",
      "```ts",
      'const greeting: string = "<hi>";',
      "```",
      "",
      "> A quote",
    ].join("\n");
    const reply = await createPost(writer, description);
    expect(reply.status, reply.text).toBe(201);
    const post = reply.body;
    // As written: a multipart form carries every line break as CRLF, stored as LF (issue 50).
    const sent = description;
    expect(post.description).toBe(sent);
    const { html } = post;
    // Headings with unique ids, each a link to itself.
    expect(html).toContain(
      '<h1 id="section-getting-started"><a class="header-anchor" href="#section-getting-started">Getting started</a></h1>',
    );
    expect(html).toContain('<h2 id="section-getting-started-1">');
    expect(html).toContain("<em>emphasis</em>");
    expect(html).toContain("<strong>strong</strong>");
    expect(html).toContain("<s>struck</s>");
    expect(html).toContain("<code>inline code</code>");
    // A task list of disabled checkboxes, each labelled by its item.
    expect(html).toContain('<ul class="contains-task-list">');
    expect(html).toContain(
      '<li class="task-list-item"><label><input type="checkbox" class="task-list-item-checkbox" disabled> to do</label></li>',
    );
    expect(html).toContain('class="task-list-item-checkbox" disabled checked> done');
    // A table whose alignment is a class, not a style attribute (the CSP allows none).
    expect(html).toContain('<th class="align-left">Name</th>');
    expect(html).toContain('<td class="align-right">1</td>');
    expect(html).not.toContain("style=");
    // Code highlighted on the server, with classes, in a block that scrolls.
    expect(html).toContain('<pre tabindex="0"><code class="hljs language-ts">');
    expect(html).toContain('<span class="hljs-keyword">const</span>');
    expect(html).toContain('<span class="hljs-string">&quot;&lt;hi&gt;&quot;</span>');
    expect(html).toContain("<blockquote>\n<p>A quote</p>\n</blockquote>");

    expect(post.excerpt).toBe(
      "Getting started. Some emphasis, strong words, struck and inline code. Getting started. to do. done. Name Count a 1 A quote",
    );
    expect(post.readingMinutes).toBe(1);
    const fetched = (await getPost(post._id)).body;
    expect(fetched).toMatchObject({
      description: sent,
      html,
      excerpt: post.excerpt,
      readingMinutes: 1,
    });
  });

  it("keeps every line break of a plain text, as a spec client writes it", async () => {
    expect(await htmlOf("First line\nsecond line\n\nA new paragraph")).toBe(
      "<p>First line<br>\nsecond line</p>\n<p>A new paragraph</p>\n",
    );
  });

  it("writes sub- and superscript tags, abbreviations and definition lists (what imports keep)", async () => {
    expect(
      await htmlOf(
        "H<sub>2</sub>O and x<SUP>2</SUP>, in HTML.\n\nTerm\n: Its definition\n\n*[HTML]: Hypertext Markup Language",
      ),
    ).toBe(
      '<p>H<sub>2</sub>O and x<sup>2</sup>, in <abbr title="Hypertext Markup Language">HTML</abbr>.</p>\n' +
        "<dl>\n<dt>Term</dt>\n<dd>Its definition</dd>\n</dl>\n",
    );
    // Only closed, plain tags: any other stays text, as all raw HTML; a tilde is a tilde.
    expect(
      await htmlOf('<sub>open and <sup class="x">classy</sup> and </sup> ~alice/notes~2'),
    ).toBe(
      "<p>&lt;sub&gt;open and &lt;sup class=&quot;x&quot;&gt;classy&lt;/sup&gt; and &lt;/sup&gt; ~alice/notes~2</p>\n",
    );
  });

  it("shows raw HTML that is no script as text", async () => {
    const description =
      '<div class="x">Hi</div>\n\nAn <iframe src="https://x.example"></iframe> and <b>bold</b>';
    const post = await addPost(api, writer, { category: "Code", description });
    expect(post.description).toBe(description);
    expect(post.html).toBe(
      "<p>&lt;div class=&quot;x&quot;&gt;Hi&lt;/div&gt;</p>\n" +
        "<p>An &lt;iframe src=&quot;https://x.example&quot;&gt;&lt;/iframe&gt; and &lt;b&gt;bold&lt;/b&gt;</p>\n",
    );
  });

  it("keeps code about scripts as code", async () => {
    const html = await htmlOf("Use `<script>` tags:\n\n```html\n<script>alert(1)</script>\n```");
    expect(html).toContain("<code>&lt;script&gt;</code>");
    expect(html).toContain('<span class="hljs-name">script</span>');
    expect(html).not.toContain("<script");
  });

  it("gives a member's links rel=\"ugc nofollow\" and follows an admin's", async () => {
    const body = "See [the docs](https://example.com/docs) or https://example.org and a@b.example";
    const member = await htmlOf(body);
    expect(member).toContain('<a href="https://example.com/docs" rel="ugc nofollow">the docs</a>');
    expect(member).toContain(
      '<a href="https://example.org" rel="ugc nofollow">https://example.org</a>',
    );
    expect(member).toContain('<a href="mailto:a@b.example" rel="ugc nofollow">a@b.example</a>');
    const owner = await htmlOf(body, admin);
    expect(owner).toContain('<a href="https://example.com/docs">the docs</a>');
    expect(owner).not.toContain("rel=");
  });

  it("counts links to //host as links to other sites", async () => {
    const html = await htmlOf("[a](//evil.example/x) ![c](//evil.example/c.png)");
    expect(html).toBe(
      '<p><a href="//evil.example/x" rel="ugc nofollow">a</a> ' +
        '<a href="//evil.example/c.png" rel="ugc nofollow">c</a></p>\n',
    );
  });

  it("keeps relative links and unlinks other schemes", async () => {
    const html = await htmlOf("[home](/posts) [ftp](ftp://x.example/f) [data](data:text/plain,hi)");
    expect(html).toBe('<p><a href="/posts">home</a> ftp data</p>\n');
  });

  it("shows images of this site's storage, lazily, and links to any other", async () => {
    const own = `${server.config.publicUrl}/uploads/ab/cd.webp`;
    const html = await htmlOf(
      `![local](/uploads/ab/cd.webp) ![absolute](${own}) ![elsewhere](https://x.example/a.png) ` +
        `![sneaky](/uploads/../api/posts) ![inline](data:image/png;base64,AAAA)`,
    );
    expect(html).toBe(
      '<p><img src="/uploads/ab/cd.webp" alt="local" loading="lazy" decoding="async"> ' +
        `<img src="${own}" alt="absolute" loading="lazy" decoding="async"> ` +
        '<a href="https://x.example/a.png" rel="ugc nofollow">elsewhere</a> sneaky inline</p>\n',
    );
  });

  it("cuts the excerpt at a word within 200 characters and counts minutes by words", async () => {
    const words = Array.from({ length: 1200 }, (_, i) => `word${String(i)}`).join(" ");
    const post = await addPost(api, writer, {
      category: "Code",
      description: `## Title\n\n${words}`,
    });
    expect(post.excerpt.length).toBeLessThanOrEqual(200);
    expect(post.excerpt).toMatch(/^Title\. word0 word1 .* word\d+…$/);
    // 1,201 words at 230 a minute.
    expect(post.readingMinutes).toBe(5);
  });

  it("re-renders on update", async () => {
    const post = await addPost(api, writer, { category: "Code", description: "# Before" });
    const reply = await updatePost(writer, post._id, "*After*, and more");
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({
      description: "*After*, and more",
      html: "<p><em>After</em>, and more</p>\n",
      excerpt: "After, and more",
    });
  });

  it("is read back as stored, not rendered again on the way out", async () => {
    const post = await addPost(api, writer, { category: "Code", description: "# Stored" });
    await server.app.deps.db
      .updateTable("posts")
      .set({ html: "<p>as stored</p>", excerpt: "as stored", reading_minutes: 7 })
      .where("id", "=", post._id)
      .execute();
    expect((await getPost(post._id)).body).toMatchObject({
      html: "<p>as stored</p>",
      excerpt: "as stored",
      readingMinutes: 7,
    });
  });
});

describe("post lists", () => {
  it("carry the excerpt and reading time, not the html", async () => {
    const post = await addPost(api, writer, { category: "Code", description: "# Listed\n\nText" });
    const lists = [
      (await api.get<PostSummary[]>("/api/posts?pageNumber=1")).body,
      (await api.get<PostSummary[]>("/api/posts")).body,
      (await api.get<PostSummary[]>("/api/categories/category/Code")).body,
      (await api.get<PostSummary[]>(`/api/users/user/${writer.id}`)).body,
      (await api.get<{ posts: PostSummary[] }>(`/api/users/profile/${writer.id}`)).body.posts,
    ];
    for (const list of lists) {
      const listed = list.find((item) => item._id === post._id);
      expect(listed).toMatchObject({ excerpt: "Listed. Text", readingMinutes: 1 });
      expect(listed).not.toHaveProperty("html");
    }
  });
});

describe("posts written before Markdown (migration 004)", () => {
  it("are marked plain and rendered as the page showed them, in batches", async () => {
    const { db } = server.app.deps;
    // Back to the schema before the migration, with rows written then (more than one batch).
    await migrateTo(db, "003-verified-addresses");
    const now = new Date().toISOString();
    const ids = Array.from({ length: 450 }, () => newId());
    const old = "# Not a heading\n*not emphasis*\n\n\nA <b>tag</b> & more\r\nend";
    for (let start = 0; start < ids.length; start += 150) {
      await db
        .insertInto("posts")
        .values(
          ids.slice(start, start + 150).map((id, index) => ({
            id,
            user_id: writer.id,
            title: `Old ${String(start + index)}`,
            description: start + index === 0 ? old : "Old words",
            category: "Code",
            image_key: "legacy/none.webp",
            created_at: now,
            updated_at: now,
            // Rows of the table as it was: without the columns 004 adds.
          })) as never,
        )
        .execute();
    }
    await migrateToLatest(db);

    const first = ids[0] ?? "";
    const expected =
      "<p># Not a heading<br>\n*not emphasis*</p>\n<p>A &#60;b&#62;tag&#60;/b&#62; &#38; more<br>\nend</p>";
    expect((await getPost(first)).body).toMatchObject({
      description: old,
      html: expected,
      excerpt: "# Not a heading *not emphasis* A <b>tag</b> & more end",
      readingMinutes: 1,
    });
    const rows = await db
      .selectFrom("posts")
      .select(["body_format", "html"])
      .where("id", "in", ids)
      .execute();
    expect(rows).toHaveLength(ids.length);
    expect(rows.every((row) => row.body_format === "plain" && row.html !== "")).toBe(true);

    // An edit keeps it plain: Markdown characters in it stay characters.
    const reply = await updatePost(writer, first, "# Still plain\n**text**");
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.html).toBe("<p># Still plain<br>\n**text**</p>");
  });
});
