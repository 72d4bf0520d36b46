import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildUser, signInAdmin, type TestUser } from "../support/factories.js";
import { client, type Client } from "../support/http.js";
import {
  addCategory,
  addComment,
  addPost,
  toggleLikeOf,
  type PostDetail,
} from "../support/post-fixtures.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

// Issue 31 (decision 021): signed-in pages made from a shell rendered once for every member, with
// each viewer's islands filled in per request. The test server checks every such page against a
// render of the whole page for its viewer and answers 500 where they differ
// (`verifyMemberPages`), so every 200 below is also a page equal to its whole render.

let server: TestServer;
let api: Client;
let admin: TestUser;
let writer: TestUser;
let reader: TestUser;
let category: string;
let post: PostDetail;
/** Every SQL statement the server ran, in order. */
const queries: string[] = [];

beforeAll(async () => {
  server = await startTestServer(
    {},
    {
      onQuery: (sql, background) => {
        if (!background) queries.push(sql);
      },
    },
  );
  api = client(server.url);
  admin = await signInAdmin(server, api);
  category = (await addCategory(api, admin, "Gardens")).title;
  writer = await buildUser(server, api);
  reader = await buildUser(server, api);
  post = await addPost(api, writer, { title: "Roses in November", category });
});
afterAll(async () => {
  await server.close();
});

const as = (user: TestUser, cookies = "") => ({
  cookie: `session=${user.token}${cookies ? `; ${cookies}` : ""}`,
});

/** A page as a member's browser asks for it, and the statements its answer ran. */
async function page(path: string, headers: Record<string, string>) {
  const before = queries.length;
  const response = await fetch(`${server.url}${path}`, {
    redirect: "manual",
    headers: { "accept-encoding": "br", ...headers },
  });
  const html = await response.text();
  expect(response.status, html.slice(0, 300)).toBe(200);
  return { response, html, ran: queries.slice(before) };
}

/** Whether the Save button of the card or post titled `title` is pressed ("true" or "false"). */
const saveButtonOf = (html: string, title: string) =>
  new RegExp(
    `class="bookmark-button[^"]*" aria-pressed="(true|false)"(?:(?!</button>)[^])*?: (?:<!-- -->)?${title}<`,
  ).exec(html)?.[1];

describe("a member page from its shell", () => {
  it("runs only the viewer's reads once the page is made for any member", async () => {
    // A server of its own without the check (whose whole renders run every loader's reads).
    const unchecked: string[] = [];
    const { databaseUrl } = server.config;
    const plain = await startTestServer(
      { DATA_DIR: server.dataDir, ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) },
      {
        verifyMemberPages: false,
        onQuery: (sql, background) => {
          if (!background) unchecked.push(sql);
        },
      },
    );
    try {
      const ask = async (user: TestUser) => {
        const before = unchecked.length;
        const response = await fetch(`${plain.url}/posts`, { headers: as(user) });
        return { html: await response.text(), ran: unchecked.slice(before) };
      };
      await ask(writer);
      const second = await ask(reader);
      // The session, the bell's count and the cards' saved state: no list, no categories.
      expect(second.ran.length, second.ran.join("\n")).toBe(3);
      expect(second.ran.join("\n")).not.toMatch(/from "categories"/);
      expect(second.html).toContain("Roses in November");
    } finally {
      await plain.close();
    }
  });

  it("carries nothing of one viewer to another: name, menu, bell, saved state, scripts", async () => {
    await api.put(`/api/posts/bookmark/${post._id}`, undefined, { token: reader.token });
    await addComment(api, reader, post._id, "They smell of tea.");
    for (const path of [
      "/",
      "/posts",
      `/posts/categories/${category}`,
      `/posts/details/${post._id}`,
    ]) {
      const readers = await page(path, as(reader));
      const writers = await page(path, as(writer));
      const admins = await page(path, as(admin));

      expect(readers.html).toContain(`<span class="user-menu-name">${reader.username}</span>`);
      expect(readers.html).not.toContain(`<span class="user-menu-name">${writer.username}</span>`);
      expect(writers.html).toContain(`<span class="user-menu-name">${writer.username}</span>`);
      expect(writers.html).not.toContain(`<span class="user-menu-name">${reader.username}</span>`);

      expect(saveButtonOf(readers.html, post.title)).toBe("true");
      expect(saveButtonOf(writers.html, post.title)).toBe("false");

      // The reader's comment is the writer's notification, and no one else's.
      expect(writers.html).toContain('aria-label="Notifications, 1 unread"');
      expect(readers.html).toContain('aria-label="Notifications"');

      expect(admins.html).toContain("Admin Dashboard");
      expect(readers.html).not.toContain("Admin Dashboard");

      // No nonce of anyone's: the policy lists the scripts' hashes, the reader's data script's too.
      const policy = readers.response.headers.get("content-security-policy") ?? "";
      expect(policy).not.toContain("'nonce-");
      expect(policy).toContain("'sha256-");
      expect(writers.response.headers.get("content-security-policy")).not.toBe(policy);
      expect(readers.response.headers.get("cache-control")).toBe("private, no-store");
    }
  });

  it("gives each viewer their own tools on the post page, and only on their own content", async () => {
    const path = `/posts/details/${post._id}`;
    const writers = (await page(path, as(writer))).html;
    const readers = (await page(path, as(reader))).html;
    const admins = (await page(path, as(admin))).html;
    // The author edits the post (its Markdown reaches them alone); an admin may delete it.
    expect(writers).toContain("Edit Post");
    expect(readers).not.toContain("Edit Post");
    expect(admins).not.toContain("Edit Post");
    expect(admins).toContain("Delete Post");
    expect(readers).not.toContain("Delete Post");
    // The reader's comment: its tools for the reader, a Report menu for the others; and no one
    // reports their own post. So the writer's one menu is the comment's, the reader's the post's.
    const reportMenus = (html: string) => html.split('class="report-menu"').length - 1;
    const reportsPost = (html: string) =>
      /class="report-menu"(?:(?!<\/details>)[^])*name="postId"/.test(html);
    expect(readers).toContain('aria-label="Edit comment"');
    expect(writers).not.toContain('aria-label="Edit comment"');
    expect(reportMenus(writers)).toBe(1);
    expect(reportsPost(writers)).toBe(false);
    expect(reportMenus(readers)).toBe(1);
    expect(reportsPost(readers)).toBe(true);
    // Only the author is not offered a Follow.
    expect(writers).not.toContain(`Follow ${writer.username}`);
    expect(readers).toMatch(new RegExp(`aria-label="(?:Follow|Following) ${writer.username}"`));

    // A like leaves each reader's comments section as it was kept for them (decision 029): still
    // theirs alone, next to the new count.
    await toggleLikeOf(api, admin, post._id);
    const writersAfter = (await page(path, as(writer))).html;
    const readersAfter = (await page(path, as(reader))).html;
    expect(readersAfter).toContain('aria-label="Edit comment"');
    expect(writersAfter).not.toContain('aria-label="Edit comment"');
    expect(reportsPost(writersAfter)).toBe(false);
    expect(reportsPost(readersAfter)).toBe(true);
    for (const html of [writersAfter, readersAfter]) expect(html).toContain("1 like");
    await toggleLikeOf(api, admin, post._id);
  });

  it("shows a viewer's write on their next page, and anyone's write on everyone's", async () => {
    expect(saveButtonOf((await page("/", as(writer))).html, post.title)).toBe("false");
    await api.put(`/api/posts/bookmark/${post._id}`, undefined, { token: writer.token });
    expect(saveButtonOf((await page("/", as(writer))).html, post.title)).toBe("true");

    await addPost(api, reader, { title: "Frost on the glass", category });
    expect((await page("/posts", as(writer))).html).toContain("Frost on the glass");
  });

  it("is one shell for every spelling of a page number", async () => {
    const { databaseUrl } = server.config;
    const counted: string[] = [];
    const plain = await startTestServer(
      { DATA_DIR: server.dataDir, ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) },
      {
        verifyMemberPages: false,
        onQuery: (sql, background) => {
          if (!background) counted.push(sql);
        },
      },
    );
    try {
      const listReads = async (path: string) => {
        const before = counted.length;
        const response = await fetch(`${plain.url}${path}`, { headers: as(reader) });
        expect(response.status).toBe(200);
        await response.text();
        return counted.slice(before).filter((sql) => /from "categories"/.test(sql)).length;
      };
      // A shell is made once (the root reads the categories for it), whatever the spelling.
      expect(await listReads("/posts?page=1")).toBe(1);
      for (const spelling of ["/posts?page=01", "/posts?page=1.0", "/posts?page=%2B1"]) {
        expect(await listReads(spelling), spelling).toBe(0);
      }
      expect(await listReads("/posts")).toBe(1);
      for (const spelling of ["/posts?page=one", "/posts?page=-3", "/posts?page=1e999"]) {
        expect(await listReads(spelling), spelling).toBe(0);
      }
    } finally {
      await plain.close();
    }
  });

  it("makes a profile one page for every other member; its owner's and an admin's are theirs", async () => {
    const path = `/profile/${writer.id}`;
    const follower = await buildUser(server, api);
    await api.put(`/api/users/follow/${writer.id}`, undefined, { token: follower.token });
    const following = (html: string) =>
      /aria-pressed="(true|false)" aria-label="Follow/.exec(html)?.[1];
    const byReader = await page(path, as(reader));
    const byFollower = await page(path, as(follower));
    expect([following(byReader.html), following(byFollower.html)]).toEqual(["false", "true"]);
    expect(byFollower.html).not.toContain(reader.username);
    expect(byReader.html).not.toContain(follower.username);
    for (const { html } of [byReader, byFollower]) {
      expect(html).not.toContain(writer.email);
      expect(html).not.toContain('label="Email"');
      expect(html).toContain("Roses in November");
    }

    const own = await page(path, as(writer));
    expect(own.html).toContain(writer.email);
    expect(own.html).toContain(`class="owner-tools"`);
    expect(following(own.html)).toBeUndefined();
    const byAdmin = await page(path, as(admin));
    expect(byAdmin.html).toContain(writer.email);
    expect(byAdmin.html).not.toContain(`class="owner-tools"`);
  });

  it("makes a search one page for every member; a search refused by the limit is theirs alone", async () => {
    const byReader = await page("/search?q=roses", as(reader));
    const byWriter = await page("/search?q=roses", as(writer));
    for (const html of [byReader.html, byWriter.html]) expect(html).toContain("Roses in November");
    expect(byReader.html).toContain(reader.username);
    expect(byWriter.html).not.toContain(reader.username);

    const limited = await startTestServer({ RATE_LIMITS: "on" });
    try {
      const member = await buildUser(limited, client(limited.url));
      const ask = async (q: string) => {
        const response = await fetch(`${limited.url}/search?q=${q}`, { headers: as(member) });
        return { response, html: await response.text() };
      };
      // Each text is a search made afresh, which the limit counts (120 a minute).
      for (let n = 0; n < 120; n += 1) {
        expect((await ask(`word${String(n)}`)).response.status).toBe(200);
      }
      const refused = await ask("refused");
      expect(refused.html).toContain("Too many requests");
      expect(refused.response.headers.get("cache-control")).toBe("private, no-store");
      // A search kept before the limit was reached costs nothing: still answered.
      expect((await ask("word0")).html).not.toContain("Too many requests");
    } finally {
      await limited.close();
    }
  });

  it("is made for each theme apart, and equal to the whole page in each", async () => {
    const dark = await page("/posts", as(reader, "theme=dark"));
    expect(dark.html).toContain('data-theme="dark"');
    const system = await page("/posts", as(reader));
    expect(system.html).not.toContain("data-theme=");
  });

  it("is not used for a client navigation's data, a member's own feed, nor a visitor", async () => {
    const data = await fetch(`${server.url}/posts/details/${post._id}.data`, {
      headers: as(reader),
    });
    expect(data.status).toBe(200);
    expect(data.headers.get("content-type")).toContain("text/x-script");

    await api.put(`/api/users/follow/${writer.id}`, undefined, { token: reader.token });
    const feed = await page("/?tab=following", as(reader));
    expect(feed.html).toContain("From writers you follow");
    const visitor = await fetch(`${server.url}/posts`);
    const html = await visitor.text();
    expect(html).toContain("Login");
    expect(html).not.toContain('class="bookmark-button');
  });
});
