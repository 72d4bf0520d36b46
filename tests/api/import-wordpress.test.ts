import { writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { buildUser, signInAdmin } from "../support/factories.js";
import { client } from "../support/http.js";
import { allFiles, CLI_TIMEOUT, openImportSite, runCli } from "../support/porting.js";
import { ADMIN_EMAIL } from "../support/test-server.js";

const { server, scratch, site, counts, writeImages, imported } = await openImportSite("wordpress");
let exportFile: string;
let uploadsDir: string;

const cdata = (text: string) => `<![CDATA[${text}]]>`;

function comment(fields: {
  id: number;
  author: string;
  email: string;
  date: string;
  content: string;
  approved: string;
  type?: string;
}) {
  return `<wp:comment>
      <wp:comment_id>${String(fields.id)}</wp:comment_id>
      <wp:comment_author>${cdata(fields.author)}</wp:comment_author>
      <wp:comment_author_email>${cdata(fields.email)}</wp:comment_author_email>
      <wp:comment_date>${fields.date}</wp:comment_date>
      <wp:comment_date_gmt>${fields.date}</wp:comment_date_gmt>
      <wp:comment_content>${cdata(fields.content)}</wp:comment_content>
      <wp:comment_approved>${cdata(fields.approved)}</wp:comment_approved>
      <wp:comment_type>${cdata(fields.type ?? "comment")}</wp:comment_type>
      <wp:comment_parent>0</wp:comment_parent>
    </wp:comment>`;
}

/** A WordPress eXtended RSS 1.2 file in its documented shape (Tools > Export), with these items. */
function wxrOf(items: string) {
  return `<?xml version="1.0" encoding="UTF-8" ?>
<rss version="2.0"
  xmlns:excerpt="http://wordpress.org/export/1.2/excerpt/"
  xmlns:content="http://purl.org/rss/1.0/modules/content/"
  xmlns:wfw="http://wellformedweb.org/CommentAPI/"
  xmlns:dc="http://purl.org/dc/elements/1.1/"
  xmlns:wp="http://wordpress.org/export/1.2/">
<channel>
  <title>My WordPress Blog</title>
  <link>https://wp.example.com</link>
  <wp:wxr_version>1.2</wp:wxr_version>
  <wp:author>
    <wp:author_id>1</wp:author_id>
    <wp:author_login>${cdata("linus")}</wp:author_login>
    <wp:author_email>${cdata("linus@wp.example.com")}</wp:author_email>
    <wp:author_display_name>${cdata("Linus T")}</wp:author_display_name>
  </wp:author>
  <wp:category>
    <wp:term_id>3</wp:term_id>
    <wp:category_nicename>${cdata("kernel-news")}</wp:category_nicename>
    <wp:cat_name>${cdata("Kernel News")}</wp:cat_name>
  </wp:category>
  ${items}
</channel>
</rss>
`;
}

function wxr() {
  return wxrOf(`<item>
    <title>First post</title>
    <link>https://wp.example.com/first-post/</link>
    <pubDate>Tue, 02 Jan 2024 03:04:05 +0000</pubDate>
    <dc:creator>${cdata("linus")}</dc:creator>
    <content:encoded>${cdata(
      '<!-- wp:paragraph -->\nHello &amp; welcome.\n\nSecond paragraph with <em>emphasis</em>.\n\n<img src="https://wp.example.com/wp-content/uploads/2024/01/diagram.png" alt="Diagram" />\n<!-- /wp:paragraph -->',
    )}</content:encoded>
    <wp:post_id>10</wp:post_id>
    <wp:post_date>${cdata("2024-01-02 04:04:05")}</wp:post_date>
    <wp:post_date_gmt>${cdata("2024-01-02 03:04:05")}</wp:post_date_gmt>
    <wp:post_modified_gmt>${cdata("2024-01-03 00:00:00")}</wp:post_modified_gmt>
    <wp:post_name>${cdata("first-post")}</wp:post_name>
    <wp:status>${cdata("publish")}</wp:status>
    <wp:post_type>${cdata("post")}</wp:post_type>
    <category domain="post_tag" nicename="misc">${cdata("Misc")}</category>
    <category domain="category" nicename="kernel-news">${cdata("Kernel News")}</category>
    <wp:postmeta>
      <wp:meta_key>${cdata("_thumbnail_id")}</wp:meta_key>
      <wp:meta_value>${cdata("11")}</wp:meta_value>
    </wp:postmeta>
    ${comment({ id: 1, author: "Reader One", email: "reader@example.net", date: "2024-01-05 06:07:08", content: "Great <b>post</b>!", approved: "1" })}
    ${comment({ id: 2, author: "Spammer", email: "spam@example.net", date: "2024-01-05 06:07:09", content: "Buy things", approved: "0" })}
    ${comment({ id: 3, author: "Other blog", email: "", date: "2024-01-05 06:07:10", content: "Linked to you", approved: "1", type: "pingback" })}
    ${comment({ id: 4, author: "Terse", email: "terse@example.net", date: "2024-01-05 06:07:11", content: "k", approved: "1" })}
  </item>
  <item>
    <title>cover</title>
    <wp:post_id>11</wp:post_id>
    <wp:post_type>${cdata("attachment")}</wp:post_type>
    <wp:status>${cdata("inherit")}</wp:status>
    <wp:attachment_url>${cdata("https://wp.example.com/wp-content/uploads/2024/01/cover.png")}</wp:attachment_url>
  </item>
  <item>
    <title>Work in progress</title>
    <dc:creator>${cdata("linus")}</dc:creator>
    <content:encoded>${cdata("<p>Not done yet.</p>")}</content:encoded>
    <wp:post_id>12</wp:post_id>
    <wp:post_date>${cdata("2024-03-04 05:06:07")}</wp:post_date>
    <wp:post_date_gmt>${cdata("0000-00-00 00:00:00")}</wp:post_date_gmt>
    <wp:post_name>${cdata("")}</wp:post_name>
    <wp:status>${cdata("draft")}</wp:status>
    <wp:post_type>${cdata("post")}</wp:post_type>
  </item>
  <item>
    <title>Private notes</title>
    <dc:creator>${cdata("linus")}</dc:creator>
    <content:encoded>${cdata("<p>Mine.</p>")}</content:encoded>
    <wp:post_id>13</wp:post_id>
    <wp:post_date_gmt>${cdata("2024-03-04 05:06:07")}</wp:post_date_gmt>
    <wp:post_name>${cdata("private-notes")}</wp:post_name>
    <wp:status>${cdata("private")}</wp:status>
    <wp:post_type>${cdata("post")}</wp:post_type>
  </item>
  <item>
    <title>Contact</title>
    <dc:creator>${cdata("linus")}</dc:creator>
    <content:encoded>${cdata(
      'Write to <a href="https://wp.example.com/first-post/">the first post</a>\'s author.\n\n<img src="https://wp.example.com/wp-content/uploads/2024/01/map.png" alt="Map" />',
    )}</content:encoded>
    <excerpt:encoded>${cdata("How to reach us.")}</excerpt:encoded>
    <wp:post_id>14</wp:post_id>
    <wp:post_date_gmt>${cdata("2023-12-01 10:00:00")}</wp:post_date_gmt>
    <wp:post_name>${cdata("contact")}</wp:post_name>
    <wp:status>${cdata("publish")}</wp:status>
    <wp:post_type>${cdata("page")}</wp:post_type>
    ${comment({ id: 5, author: "Visitor", email: "visitor@example.net", date: "2023-12-02 10:00:00", content: "Hello?", approved: "1" })}
  </item>
  <item>
    <title>Colophon &amp; credits</title>
    <dc:creator>${cdata("linus")}</dc:creator>
    <content:encoded>${cdata("<p>Set in a font.</p>")}</content:encoded>
    <wp:post_id>15</wp:post_id>
    <wp:post_date_gmt>${cdata("2023-12-03 10:00:00")}</wp:post_date_gmt>
    <wp:post_name>${cdata("")}</wp:post_name>
    <wp:status>${cdata("draft")}</wp:status>
    <wp:post_type>${cdata("page")}</wp:post_type>
  </item>`);
}

/** A post by linus with the fields that decide who may read it, and its comments. */
function postItem(fields: {
  id: number;
  title: string;
  slug: string;
  status: string;
  password?: string;
  comments?: string;
  body?: string;
}) {
  return `<item>
    <title>${fields.title}</title>
    <dc:creator>${cdata("linus")}</dc:creator>
    <content:encoded>${cdata(fields.body ?? `<p>The body of ${fields.title}.</p>`)}</content:encoded>
    <wp:post_id>${String(fields.id)}</wp:post_id>
    <wp:post_date_gmt>${cdata(`2023-06-${String(fields.id).padStart(2, "0")} 08:00:00`)}</wp:post_date_gmt>
    <wp:post_name>${cdata(fields.slug)}</wp:post_name>
    <wp:status>${cdata(fields.status)}</wp:status>
    <wp:post_password>${cdata(fields.password ?? "")}</wp:post_password>
    <wp:post_type>${cdata("post")}</wp:post_type>
    ${fields.comments ?? ""}
  </item>`;
}

beforeAll(async () => {
  exportFile = path.join(scratch, "export.xml");
  await writeFile(exportFile, wxr());
  uploadsDir = await writeImages("uploads", {
    "2024/01/diagram.png": [640, 480],
    "2024/01/cover.png": [1200, 600],
    "2024/01/map.png": [800, 500],
  });
});

describe(
  "npm run import -- --wordpress: refusals, nothing written",
  { timeout: CLI_TIMEOUT },
  () => {
    it("refuses a file that is not there", async () => {
      const before = await counts();
      const run = await runCli("import", ["--wordpress", path.join(scratch, "none.xml")], site);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain("There is no file");
      expect(await counts()).toEqual(before);
    });

    it("refuses XML that is not well-formed (a cut file) and XML that is not WXR", async () => {
      const before = await counts();
      const broken = path.join(scratch, "broken.xml");
      const whole = wxr();
      await writeFile(broken, whole.slice(0, Math.floor(whole.length * 0.8)));
      let run = await runCli("import", ["--wordpress", broken], site);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/^The WordPress export is not well-formed XML/);

      await writeFile(broken, '<?xml version="1.0"?><rss version="2.0"><channel></channel></rss>');
      run = await runCli("import", ["--wordpress", broken], site);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/^This is not a WordPress export \(WXR\)/);
      expect(await counts()).toEqual(before);
    });
  },
);

describe("npm run import -- --wordpress export.xml --images DIR", { timeout: CLI_TIMEOUT }, () => {
  let first: Awaited<ReturnType<typeof runCli>>;

  beforeAll(async () => {
    first = await runCli("import", ["--wordpress", exportFile, "--images", uploadsDir], site);
  }, 60_000);

  it("imports posts and approved comments, and reports what it skipped and why", () => {
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("posts: 3");
    expect(first.stdout).toContain("comments: 1");
    expect(first.stdout).toContain("a comment by Spammer on first-post: it was not approved");
    expect(first.stdout).toContain(
      "a comment by Terse on first-post: comments have 2 to 2000 characters; it has 1",
    );
    expect(first.stdout).toContain(
      'Imported as drafts 1:\n  post private-notes "Private notes": private\n',
    );
    expect(first.stdout).toContain("pages: 2");
    expect(first.stdout).toContain("1 comment(s) on page contact: pages have no comments here");
    expect(first.stdout).not.toContain("posts only");
    // Every loss is reported: the pingback too.
    expect(first.stdout).toContain(
      "1 pingback(s) on first-post: pingbacks and trackbacks are other sites' notices of a link, not comments; this site keeps none",
    );
  });

  it("keeps dates, status, category, author and the feature and body images", async () => {
    const { db } = server.app.deps;
    const posts = await db
      .selectFrom("posts")
      .selectAll()
      .orderBy("created_at")
      .orderBy("title")
      .execute();
    expect(posts.map((post) => [post.title, post.status])).toEqual([
      ["First post", "published"],
      ["Private notes", "draft"],
      ["Work in progress", "draft"],
    ]);
    const [published, , draft] = posts;
    expect(published).toMatchObject({
      category: "Kernel News",
      created_at: "2024-01-02T03:04:05.000Z",
      published_at: "2024-01-02T03:04:05.000Z",
      updated_at: "2024-01-03T00:00:00.000Z",
    });
    expect(draft).toMatchObject({
      published_at: null,
      category: "Uncategorized",
      created_at: "2024-03-04T05:06:07.000Z",
    });
    expect(published?.description).toMatch(
      /^Hello & welcome\.\n\nSecond paragraph with \*emphasis\*\./,
    );
    const bodyImage = await db
      .selectFrom("body_images")
      .selectAll()
      .where("post_id", "=", published?.id ?? "")
      .executeTakeFirstOrThrow();
    expect(bodyImage).toMatchObject({ width: 640, height: 480 });
    expect(published?.description).toContain(
      `![Diagram](${server.url}/uploads/${bodyImage.image_key}/lg.webp)`,
    );
    const files = await allFiles(path.join(server.dataDir, "uploads"));
    expect(files[`${published?.image_key ?? ""}/lg.webp`]?.subarray(8, 12).toString("latin1")).toBe(
      "WEBP",
    );
    expect(first.stdout).not.toContain("post first-post: no feature image");

    const author = await db
      .selectFrom("users")
      .selectAll()
      .where("id", "=", published?.user_id ?? "")
      .executeTakeFirstOrThrow();
    expect(author).toMatchObject({
      username: "LinusT",
      email: "linus@wp.example.com",
      is_verified: 0,
    });
    const comments = await db
      .selectFrom("comments")
      .innerJoin("users", "users.id", "comments.user_id")
      .select(["text", "comments.created_at", "users.email", "users.username"])
      .execute();
    expect(comments).toEqual([
      {
        // Comments are plain text here: WordPress's HTML in them becomes its text. The address
        // typed with it proves nothing: the commenter is a placeholder of the name.
        text: "Great post!",
        created_at: "2024-01-05T06:07:08.000Z",
        email: expect.stringMatching(/^readerone-[0-9a-f]{8}@imported\.invalid$/) as unknown,
        username: "ReaderOne",
      },
    ]);
    expect(first.stdout).toContain(
      "1 commenter(s) got a placeholder account under their name (@imported.invalid)",
    );
  });

  it("imports pages as pages, not posts: a published one for everyone, a draft for admins", async () => {
    const api = client(server.url);
    const admin = await signInAdmin(server, api);
    const listed = await api.get<{ slug: string; title: string; status: string }[]>("/api/pages", {
      token: admin.token,
    });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.map(({ slug, title, status }) => ({ slug, title, status }))).toEqual([
      // The draft had no slug on WordPress: its title gives it one.
      { slug: "colophon-credits", title: "Colophon & credits", status: "draft" },
      { slug: "contact", title: "Contact", status: "published" },
    ]);
    const posts = await api.get("/api/posts");
    expect(posts.text).not.toContain("Contact");

    const contact = await api.get<{
      _id: string;
      description: string;
      html: string;
      metaDescription: string | null;
      author: { username: string } | null;
      publishedAt: string;
    }>("/api/pages/contact");
    expect(contact.status, contact.text).toBe(200);
    expect(contact.body).toMatchObject({
      metaDescription: "How to reach us.",
      author: { username: "LinusT" },
      publishedAt: "2023-12-01T10:00:00.000Z",
    });
    const firstPost = await imported("First post");
    // Its links to the blog's posts lead here, as a post's do.
    expect(contact.body.description).toContain(`[the first post](/posts/details/${firstPost.id})`);
    const image = await server.app.deps.db
      .selectFrom("body_images")
      .selectAll()
      .where("page_id", "=", contact.body._id)
      .executeTakeFirstOrThrow();
    expect(image).toMatchObject({ width: 800, height: 500, post_id: null });
    expect(contact.body.description).toContain(
      `![Map](${server.url}/uploads/${image.image_key}/lg.webp)`,
    );
    expect(contact.body.html).toContain(`src="${server.url}/uploads/${image.image_key}/lg.webp"`);
    const files = await allFiles(path.join(server.dataDir, "uploads"));
    expect(files[`${image.image_key}/lg.webp`]?.subarray(8, 12).toString("latin1")).toBe("WEBP");

    // An admin's edit keeps the image the page shows (its upload is the site's admin's).
    const edited = await api.put(
      `/api/pages/${contact.body._id}`,
      { description: `${contact.body.description}\n\nOpen on weekdays.` },
      { token: admin.token },
    );
    expect(edited.status, edited.text).toBe(200);
    const kept = await server.app.deps.db
      .selectFrom("body_images")
      .select(["page_id", "released_at", "uploader_id"])
      .where("image_key", "=", image.image_key)
      .executeTakeFirstOrThrow();
    expect(kept).toEqual({ page_id: contact.body._id, released_at: null, uploader_id: admin.id });

    expect((await api.get("/api/pages/colophon-credits")).status).toBe(404);
    const draft = await api.get<{ status: string; html: string }>("/api/pages/colophon-credits", {
      token: admin.token,
    });
    expect(draft.status, draft.text).toBe(200);
    expect(draft.body).toMatchObject({ status: "draft", html: "<p>Set in a font.</p>\n" });
  });

  it("adds nothing when run again", async () => {
    const before = await counts();
    const pages = () => server.app.deps.db.selectFrom("pages").select("slug").execute();
    const pagesBefore = await pages();
    const again = await runCli("import", ["--wordpress", exportFile, "--images", uploadsDir], site);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain("posts: 0");
    expect(again.stdout).toContain("pages: 0");
    expect(again.stdout).toContain("post first-post: already imported");
    expect(again.stdout).toContain("page contact: already imported");
    expect(await counts()).toEqual(before);
    expect(await pages()).toEqual(pagesBefore);
  });
});

describe(
  "npm run import -- --wordpress: what the blog did not show to everyone",
  { timeout: CLI_TIMEOUT },
  () => {
    let run: Awaited<ReturnType<typeof runCli>>;

    beforeAll(async () => {
      const file = path.join(scratch, "hidden.xml");
      await writeFile(
        file,
        wxrOf(
          [
            postItem({
              id: 21,
              title: "Template: Password Protected",
              slug: "template-password-protected",
              status: "publish",
              password: "enter",
              comments: [
                comment({
                  id: 31,
                  author: "Insider",
                  email: "insider@example.net",
                  date: "2023-06-22 09:00:00",
                  content: "Glad I had the password.",
                  approved: "1",
                }),
                comment({
                  id: 32,
                  author: "Spammer Two",
                  email: "spam2@example.net",
                  date: "2023-06-22 09:01:00",
                  content: "Cheap pills here",
                  approved: "spam",
                }),
                comment({
                  id: 33,
                  author: "Binned",
                  email: "binned@example.net",
                  date: "2023-06-22 09:02:00",
                  content: "Thrown away",
                  approved: "trash",
                }),
              ].join("\n"),
            }),
            postItem({
              id: 22,
              title: "Awaiting review",
              slug: "awaiting-review",
              status: "pending",
            }),
            postItem({ id: 23, title: "Coming soon", slug: "coming-soon", status: "future" }),
            postItem({ id: 24, title: "Just a draft", slug: "just-a-draft", status: "draft" }),
            postItem({ id: 25, title: "Open to all", slug: "open-to-all", status: "publish" }),
          ].join("\n"),
        ),
      );
      run = await runCli("import", ["--wordpress", file], site);
    }, 60_000);

    it("imports a password-protected post as a draft, its comments hidden with it", async () => {
      expect(run.code, run.stderr).toBe(0);
      for (const title of ["Awaiting review", "Coming soon", "Just a draft"])
        expect((await imported(title)).status, title).toBe("draft");
      expect((await imported("Open to all")).status).toBe("published");
      const post = await imported("Template: Password Protected");
      expect(post).toMatchObject({ status: "draft", published_at: null });
      const comments = await server.app.deps.db
        .selectFrom("comments")
        .select("text")
        .where("post_id", "=", post.id)
        .execute();
      expect(comments).toEqual([{ text: "Glad I had the password." }]);

      const api = client(server.url);
      const reader = await buildUser(server, api);
      for (const token of [undefined, reader.token]) {
        const page = await api.get(`/api/posts/${post.id}`, { token });
        expect(page.status, page.text).toBe(404);
        expect(page.text).not.toContain("Glad I had the password.");
      }
      const listed = await api.get("/api/posts");
      expect(listed.text).not.toContain("Template: Password Protected");
    });

    it("lists each post that was not public by its title and why, and no comment that was not approved", () => {
      expect(run.stdout).toContain("posts: 5");
      expect(run.stdout).toContain("comments: 1");
      expect(run.stdout).toContain(
        [
          "Imported as drafts 3:",
          '  post template-password-protected "Template: Password Protected": password-protected',
          '  post awaiting-review "Awaiting review": pending review',
          '  post coming-soon "Coming soon": scheduled',
        ].join("\n"),
      );
      expect(run.stdout).not.toContain('"Just a draft"');
      expect(run.stdout).not.toContain('"Open to all"');
      for (const author of ["Spammer Two", "Binned"])
        expect(run.stdout).toContain(
          `a comment by ${author} on template-password-protected: it was not approved`,
        );
    });
  },
);

describe(
  "npm run import -- --wordpress: a hostile or careless export (decision 019)",
  { timeout: CLI_TIMEOUT },
  () => {
    let run: Awaited<ReturnType<typeof runCli>>;
    let member: Awaited<ReturnType<typeof buildUser>>;
    const NESTINGS = [
      ["div", "<div>", "</div>"],
      ["bold", "<b>", "</b>"],
      ["list", "<ul><li>", "</li></ul>"],
      ["quote", "<blockquote>", "</blockquote>"],
    ] as const;
    const nested = (open: string, close: string) =>
      `${open.repeat(2000)}deep text${close.repeat(2000)}`;

    beforeAll(async () => {
      member = await buildUser(server, client(server.url));
      const file = path.join(scratch, "hostile.xml");
      const typedAddresses = [ADMIN_EMAIL, member.email.toUpperCase()].map((email, index) =>
        comment({
          id: 41 + index,
          author: `Impostor ${String(index)}`,
          email,
          date: "2023-06-27 09:00:00",
          content: "I am who my address says.",
          approved: "1",
        }),
      );
      const notices = ["pingback", "trackback", "trackback"].map((type, index) =>
        comment({
          id: 51 + index,
          author: "Elsewhere",
          email: "",
          date: "2023-06-27 10:00:00",
          content: "Linked here",
          approved: "1",
          type,
        }),
      );
      const posts = NESTINGS.map(([name, open, close], index) =>
        postItem({
          id: 26 + index,
          title: `Nested ${name}`,
          slug: `nested-${name}`,
          status: "publish",
          body: nested(open, close),
        }),
      );
      await writeFile(
        file,
        wxrOf(
          [
            ...posts,
            postItem({
              id: 30,
              title: "A plain post",
              slug: "a-plain-post",
              status: "publish",
              comments: [...typedAddresses, ...notices].join("\n"),
            }),
          ].join("\n"),
        ),
      );
      run = await runCli("import", ["--wordpress", file], site);
    }, 60_000);

    it("imports posts of 2,000 nested elements beside the others, their text kept", async () => {
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      expect(run.stdout).toContain("posts: 5");
      for (const [name] of NESTINGS) {
        const post = await imported(`Nested ${name}`);
        expect(post.description, name).toContain("deep text");
      }
      expect((await imported("A plain post")).status).toBe("published");
    });

    it("never gives a comment to an account by the address typed with it", async () => {
      const post = await imported("A plain post");
      const comments = await server.app.deps.db
        .selectFrom("comments")
        .innerJoin("users", "users.id", "comments.user_id")
        .select(["users.email", "users.username", "users.is_admin"])
        .where("post_id", "=", post.id)
        .orderBy("users.username")
        .execute();
      expect(comments).toEqual([
        {
          email: expect.stringMatching(/^impostor0-[0-9a-f]{8}@imported\.invalid$/) as unknown,
          username: "Impostor0",
          is_admin: 0,
        },
        {
          email: expect.stringMatching(/^impostor1-[0-9a-f]{8}@imported\.invalid$/) as unknown,
          username: "Impostor1",
          is_admin: 0,
        },
      ]);
      const theirs = await server.app.deps.db
        .selectFrom("comments")
        .innerJoin("users", "users.id", "comments.user_id")
        .select("comments.id")
        .where((eb) =>
          eb.or([eb("users.email_key", "=", ADMIN_EMAIL), eb("users.id", "=", member.id)]),
        )
        .execute();
      expect(theirs).toEqual([]);
    });

    it("reports the pingbacks and trackbacks it left out", () => {
      expect(run.stdout).toContain("1 pingback(s) on a-plain-post: pingbacks and trackbacks");
      expect(run.stdout).toContain("2 trackback(s) on a-plain-post: pingbacks and trackbacks");
    });
  },
);
