import { createHash } from "node:crypto";
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
import { postForm } from "../support/form-post.js";

let server: TestServer;
let api: Client;
let author: TestUser;
let reader: TestUser;
let category: string;
/** Every SQL statement the server ran, in order. */
const queries: string[] = [];

beforeAll(async () => {
  server = await startTestServer(
    {},
    {
      onQuery: (sql, background) => {
        if (!background) queries.push(sql);
      },
      // This file counts what a page costs: the whole render that checks each page made from a
      // shell (every other test server's) would count too.
      verifyMemberPages: false,
    },
  );
  api = client(server.url);
  const admin = await signInAdmin(server, api);
  category = (await addCategory(api, admin, "Travel")).title;
  author = await buildUser(server, api);
  reader = await buildUser(server, api);
});
afterAll(async () => {
  await server.close();
});

/** A page as a visitor's browser asks for it: anonymous unless a cookie is given. */
async function page(path: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.url}${path}`, {
    redirect: "manual",
    headers: { "accept-encoding": "br, gzip", ...headers },
  });
  return { response, html: await response.text() };
}

const signedIn = (user: TestUser) => ({ cookie: `session=${user.token}` });

/** Asks for a page and says how many SQL statements its answer cost (0: a kept render). */
async function pageQueries(path: string, headers: Record<string, string> = {}) {
  const before = queries.length;
  const answer = await page(path, headers);
  return { ...answer, ran: queries.length - before };
}

/** What a post page's likes part reads: its likers (its comments' part is read per comment). */
const LIKES_PART_READS = 1;
/** What a comment makes its page read: its likers, how many threads and comments, their page. */
const LIVE_PART_READS = 3;

const canonicalOf = (html: string) => /<link rel="canonical" href="([^"]*)"/.exec(html)?.[1];

async function newPost(title: string): Promise<PostDetail> {
  return addPost(api, author, { title, category });
}

describe("shared renders of anonymous pages", () => {
  it("never reach a signed-in visitor, nor carry one visitor's page to another", async () => {
    await page("/");
    const mine = await page("/", signedIn(reader));
    expect(mine.html).toContain(reader.username);
    expect(mine.response.headers.get("cache-control")).toBe("private, no-store");
    expect(mine.response.headers.get("etag")).toBeNull();

    const anonymous = await page("/");
    expect(anonymous.html).not.toContain(reader.username);
    expect(anonymous.response.headers.get("cache-control")).toContain("public");
    expect(anonymous.response.headers.get("vary")).toContain("Cookie");
  });

  it("are not used for a visitor with a message to show, nor for links that carry a token", async () => {
    await page("/posts");
    const flashed = await page("/posts", { cookie: "flash=Post%20deleted" });
    expect(flashed.html).toContain("Post deleted");
    expect(flashed.response.headers.get("etag")).toBeNull();
    expect((await page("/posts")).html).not.toContain("Post deleted");

    const link = await page(`/reset-password/${reader.id}/not-a-real-token`);
    expect(link.response.headers.get("etag")).toBeNull();
    expect(link.response.headers.get("cache-control") ?? "").not.toContain("public");
  });

  it("answer HEAD like GET, and never keep an empty HEAD body for GET", async () => {
    const head = await fetch(`${server.url}/posts?page=1`, { method: "HEAD" });
    expect(head.status).toBe(200);
    const get = await page("/posts?page=1");
    expect(get.html).toContain("</html>");
    expect(get.response.headers.get("etag")).toBe(head.headers.get("etag"));
  });

  it("answer 304 to a matching validator and a new validator once content changes", async () => {
    const first = await page("/");
    const etag = first.response.headers.get("etag") ?? "";
    expect(etag).toMatch(/^W\/".+"$/);
    const again = await page("/", { "if-none-match": etag });
    expect(again.response.status).toBe(304);
    expect(again.html).toBe("");

    await newPost("A validator mover");
    const after = await page("/", { "if-none-match": etag });
    expect(after.response.status).toBe(200);
    expect(after.html).toContain("A validator mover");
    expect(after.response.headers.get("etag")).not.toBe(etag);
  });

  it("allow exactly their own inline scripts by hash, with no nonce to reuse", async () => {
    const { response, html } = await page("/posts");
    const csp = response.headers.get("content-security-policy") ?? "";
    expect(csp).not.toContain("nonce-");
    expect(csp).not.toContain("unsafe-inline");
    const inline = [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)]
      .map((match) => match[1] ?? "")
      .filter((content) => content.length > 0);
    expect(inline.length).toBeGreaterThan(0);
    for (const content of inline) {
      const hash = createHash("sha256").update(content, "utf8").digest("base64");
      expect(csp).toContain(`'sha256-${hash}'`);
    }
  });

  it("show a new post, comment, like and deletion on the very next request", async () => {
    const post = await newPost("Before the changes");
    const path = `/posts/details/${post._id}`;
    // Both pages rendered and kept.
    expect((await page("/")).html).toContain("Before the changes");
    expect((await page(path)).html).toContain("0 likes");
    expect((await page(path)).response.headers.get("etag")).not.toBeNull();

    const added = await newPost("Fresh off the press");
    expect((await page("/")).html).toContain("Fresh off the press");
    expect((await page("/posts")).html).toContain("Fresh off the press");

    await addComment(api, reader, post._id, "A brand new remark");
    expect((await page(path)).html).toContain("A brand new remark");

    await toggleLikeOf(api, reader, post._id);
    expect((await page(path)).html).toContain("1 like");

    expect((await api.delete(`/api/posts/${added._id}`, { token: author.token })).status).toBe(200);
    expect((await page("/")).html).not.toContain("Fresh off the press");
    expect((await page(`/posts/details/${added._id}`)).response.status).toBe(404);
  });

  it("are made again for a like or a comment only where they show: that post's page", async () => {
    const liked = await newPost("Liked on its own");
    const other = await newPost("Read on its own");
    const likedPath = `/posts/details/${liked._id}`;
    const lists = ["/", "/posts", `/posts/categories/${category}`, "/search?q=own"];
    const kept = [...lists, `/posts/details/${other._id}`];
    for (const path of [...kept, likedPath]) expect((await page(path)).response.status).toBe(200);
    // A list page's data holds no counts either (its cards show none): it has none to go stale.
    for (const path of lists)
      expect((await page(path)).html).not.toMatch(/likesCount|commentsCount/);
    const keptStill = async () => {
      for (const path of kept) expect([path, (await pageQueries(path)).ran]).toEqual([path, 0]);
    };
    await keptStill();

    await toggleLikeOf(api, reader, liked._id);
    // No page is rendered again (decision 029): the visitors' shell is filled with the post's
    // likes read again, the statement of its likes part alone (its comments are as they were).
    const afterLike = await pageQueries(likedPath);
    expect(afterLike.html).toContain("1 like");
    expect(afterLike.ran).toBe(LIKES_PART_READS);
    expect((await page(likedPath, signedIn(author))).html).toContain("1 like");
    await keptStill();

    await addComment(api, reader, liked._id, "A remark on its own");
    const afterComment = await pageQueries(likedPath);
    expect(afterComment.html).toContain("A remark on its own");
    expect(afterComment.ran).toBe(LIVE_PART_READS);
    expect((await page(likedPath, signedIn(author))).html).toContain("A remark on its own");
    await keptStill();
  });

  it("show a change made through a page form on the next request too", async () => {
    const post = await newPost("Commented through the page");
    const path = `/posts/details/${post._id}`;
    expect((await page(path)).html).not.toContain("Said on the page");
    const response = await postForm(
      server,
      path,
      "intent=comment&text=Said+on+the+page",
      signedIn(reader),
    );
    expect(response.status).toBeLessThan(400);
    expect((await page(path)).html).toContain("Said on the page");
  });

  it("are one render for every spelling of a page's query: unknown parameters are left out", async () => {
    const first = await page("/");
    const etag = first.response.headers.get("etag");
    for (let n = 1; n <= 20; n += 1) {
      const { response, html, ran } = await pageQueries(`/?utm_source=${String(n)}`);
      expect(ran, `/?utm_source=${String(n)}`).toBe(0);
      expect(response.headers.get("etag")).toBe(etag);
      expect(canonicalOf(html)).toBe(`${server.config.publicUrl}/`);
    }
    await page("/posts?page=2");
    const tagged = await pageQueries("/posts?utm=x&page=2&ref=y");
    expect(tagged.ran).toBe(0);
    expect(canonicalOf(tagged.html)).toBe(`${server.config.publicUrl}/posts?page=2`);
    // What the page does read still makes another page.
    expect((await pageQueries("/posts?page=3")).ran).toBeGreaterThan(0);
  });

  it("keep a search's page until content changes, one per search text and page (decision 015)", async () => {
    await newPost("Searched for twice");
    const first = await pageQueries("/search?q=searched");
    expect(first.response.status).toBe(200);
    expect(first.html).toContain("1 post found");
    expect(first.ran).toBeGreaterThan(0);
    const again = await pageQueries("/search?q=searched&utm_source=x");
    expect(again.ran).toBe(0);
    expect(again.html).toContain("1 post found");
    // What the page reads makes another page: other text, another page of results.
    expect((await pageQueries("/search?q=twice")).ran).toBeGreaterThan(0);
    expect((await pageQueries("/search?q=searched&page=2")).ran).toBeGreaterThan(0);
    // A signed-in reader's results page is theirs (their header): made for them each time.
    expect((await pageQueries("/search?q=searched", signedIn(reader))).ran).toBeGreaterThan(0);

    await newPost("Searched for again");
    const after = await pageQueries("/search?q=searched");
    expect(after.ran).toBeGreaterThan(0);
    expect(after.html).toContain("2 posts found");
  });

  it("are one render for every address no page has, a 404 kept per content version", async () => {
    const unknown = () => `/no/such/page-${Math.random().toString(36).slice(2)}`;
    const first = await pageQueries(unknown());
    expect(first.response.status).toBe(404);
    expect(first.html).toContain("Page Not Found");
    expect(first.ran).toBeGreaterThan(0);
    expect(first.response.headers.get("content-security-policy")).toContain("'sha256-");
    for (let n = 0; n < 50; n += 1) {
      const path = n % 2 === 0 ? unknown() : `${unknown()}?n=${String(n)}`;
      const { response, html, ran } = await pageQueries(path);
      expect([response.status, ran], path).toEqual([404, 0]);
      expect(html).toBe(first.html);
      // A 404 has no validator to answer 304 with.
      expect(response.headers.get("etag")).toBeNull();
    }
    expect(first.html).not.toContain("no/such");
    // Each theme is one render of its own; a signed-in visitor's page is theirs.
    const dark = await pageQueries(unknown(), { cookie: "theme=dark" });
    expect([dark.response.status, dark.ran > 0]).toEqual([404, true]);
    expect((await pageQueries(unknown(), { cookie: "theme=dark" })).ran).toBe(0);
    const mine = await pageQueries(unknown(), signedIn(reader));
    expect([mine.response.status, mine.ran > 0]).toEqual([404, true]);
    expect(mine.html).toContain(reader.username);
    // A change of content (the header lists the categories) makes it once more.
    await newPost("Moves the version on");
    expect((await pageQueries(unknown())).ran).toBeGreaterThan(0);
    expect((await pageQueries(unknown())).ran).toBe(0);
    // An address some page has keeps its own 404, made for it.
    const gone = await pageQueries("/posts/details/no-such-post");
    expect([gone.response.status, gone.ran > 0]).toEqual([404, true]);
  });

  it("outlive the writes that change nothing: a visitor's sign-out, a failed sign-in", async () => {
    const first = await page("/");
    const etag = first.response.headers.get("etag");
    const signOut = await postForm(server, "/logout", "");
    expect(signOut.status).toBe(302);
    const signIn = await postForm(server, "/login", "email=nobody%40example.com&password=Wrong-1!");
    expect(signIn.status).toBeLessThan(500);
    const reset = await postForm(server, "/forgot-password", "email=nobody%40example.com");
    expect(reset.status).toBeLessThan(500);
    // A signed-in visitor's sign-out ends a session, not a page anyone sees.
    const leaving = await buildUser(server, api);
    expect((await postForm(server, "/logout", "", signedIn(leaving))).status).toBe(302);

    const again = await pageQueries("/");
    expect(again.ran).toBe(0);
    expect(again.response.headers.get("etag")).toBe(etag);
  });
});

describe("shared renders and the reader's theme (decision 014)", () => {
  const themeOfHtml = (html: string) => /<html lang="en"(?: data-theme="(\w+)")?>/.exec(html)?.[1];

  it("the switch refuses what it does not know, and comes back only to a page of this site", async () => {
    const unknown = await postForm(server, "/theme", "theme=sepia&returnTo=%2Fposts");
    expect(unknown.status).toBe(400);
    expect(unknown.headers.get("set-cookie")).toBeNull();

    const elsewhere = await postForm(server, "/theme", "theme=dark&returnTo=%2F%2Fevil.example");
    expect(elsewhere.status).toBe(302);
    expect(elsewhere.headers.get("location")).toBe("/");

    const crossSite = await postForm(server, "/theme", "theme=dark", {
      origin: "https://evil.example",
    });
    expect(crossSite.status).toBe(403);
    expect(crossSite.headers.get("set-cookie")).toBeNull();

    const chosen = await postForm(server, "/theme", "theme=dark&returnTo=%2Fposts%3Fpage%3D1");
    expect(chosen.status).toBe(302);
    expect(chosen.headers.get("location")).toBe("/posts?page=1");
    const cookie = chosen.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^theme=dark; Path=\/; HttpOnly; SameSite=Lax; Max-Age=31536000/);

    // The site's own form sends no address: the reader goes back by the Referer, this site's only.
    const back = await postForm(server, "/theme", "theme=dark", {
      referer: `${server.config.publicUrl}/posts?page=2`,
    });
    expect(back.headers.get("location")).toBe("/posts?page=2");
    const foreign = await postForm(server, "/theme", "theme=dark", {
      referer: "https://evil.example/posts",
    });
    expect(foreign.headers.get("location")).toBe("/");
    expect((await postForm(server, "/theme", "theme=dark")).headers.get("location")).toBe("/");

    const system = await postForm(server, "/theme", "theme=system&returnTo=%2F");
    expect(system.headers.get("set-cookie")).toMatch(/^theme=; .*Max-Age=0/);
  });

  it("the switch and the other forms come back to an address in any script, never with a 500", async () => {
    const back = async (path: string, body: string, headers: Record<string, string> = {}) => {
      const answer = await postForm(server, path, body, headers);
      expect(answer.status, `${path} ${body}`).toBe(302);
      return answer.headers.get("location");
    };
    const returnTo = (path: string) => `returnTo=${encodeURIComponent(path)}`;
    expect(await back("/theme", `theme=dark&${returnTo("/search?q=日本語")}`)).toBe(
      "/search?q=%E6%97%A5%E6%9C%AC%E8%AA%9E",
    );
    expect(await back("/theme", `theme=dark&${returnTo("/café 😀")}`)).toBe(
      "/caf%C3%A9%20%F0%9F%98%80",
    );
    // A Referer with bytes past ASCII (as a header carries them).
    const referer = `${server.config.publicUrl}/caf\u00e9`;
    expect(await back("/theme", "theme=dark", { referer })).toBe("/caf%C3%A9");
    // The forms signed-in readers send from any page.
    for (const path of ["/bookmark", "/follow", "/report"]) {
      expect(await back(path, returnTo("/ありがとう"), signedIn(reader))).toBe(
        "/%E3%81%82%E3%82%8A%E3%81%8C%E3%81%A8%E3%81%86",
      );
    }
    const signIn = `email=${encodeURIComponent(reader.email)}&password=${encodeURIComponent(reader.password)}`;
    expect(await back("/login", `${signIn}&next=${encodeURIComponent("/Ωmega")}`)).toBe(
      "/%CE%A9mega",
    );
  });

  it("are kept per theme: a reader's choice reaches no one else, and each theme is one render", async () => {
    await newPost("A post in two lights");
    const system = await pageQueries("/");
    expect(themeOfHtml(system.html)).toBeUndefined();
    expect(system.html).toContain('<meta name="color-scheme" content="light dark"/>');

    const dark = await pageQueries("/", { cookie: "theme=dark" });
    expect(themeOfHtml(dark.html)).toBe("dark");
    expect(dark.html).toContain('<meta name="color-scheme" content="dark"/>');
    expect(dark.response.headers.get("cache-control")).toContain("public");
    expect(dark.response.headers.get("etag")).not.toBe(system.response.headers.get("etag"));
    expect((await pageQueries("/", { cookie: "theme=dark" })).ran).toBe(0);

    // The system render is still everyone else's, kept, and a stray value is the system's.
    const again = await pageQueries("/");
    expect(themeOfHtml(again.html)).toBeUndefined();
    expect(again.ran).toBe(0);
    const stray = await pageQueries("/", { cookie: "theme=%3Cscript%3E" });
    expect(themeOfHtml(stray.html)).toBeUndefined();
    expect(stray.ran).toBe(0);

    const light = await pageQueries("/", { cookie: "theme=light" });
    expect(themeOfHtml(light.html)).toBe("light");

    // A client navigation's data carries the theme it was asked under.
    const data = await page("/_root.data", { cookie: "theme=dark" });
    expect(data.html).toContain('"dark"');
    expect((await page("/_root.data")).html).not.toContain('"dark"');
  });
});

describe("a search refused by its limit", () => {
  it("is told to that visitor and never kept as the page everyone gets for that search", async () => {
    const limited = await startTestServer({ RATE_LIMITS: "on" });
    try {
      const ask = (q: string) =>
        fetch(`${limited.url}/search?q=${q}`).then(async (response) => ({
          response,
          html: await response.text(),
        }));
      // Each text is a page of its own, so each is a search the limit counts (120 a minute).
      for (let n = 0; n < 120; n += 1) {
        expect((await ask(`word${String(n)}`)).response.status).toBe(200);
      }
      const refused = await ask("refused");
      expect(refused.html).toContain("Too many requests");
      expect(refused.response.headers.get("cache-control")).toBe("private, no-store");
      expect(refused.response.headers.get("etag")).toBeNull();
      // A search kept before the limit was reached is still everyone's.
      const kept = await ask("word0");
      expect(kept.html).not.toContain("Too many requests");
      expect(kept.response.headers.get("etag")).not.toBeNull();
    } finally {
      await limited.close();
    }
  });
});
