import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildUser, signInAdmin, type TestUser } from "../support/factories.js";
import { client, type Client } from "../support/http.js";
import { addCategory, addComment, addPost } from "../support/post-fixtures.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

// A post page shows its comments 50 at a time, newest page first, so a post with thousands of
// comments costs a render what a post with a few does. The API still answers every comment.
const COMMENTS = 120;

let server: TestServer;
let api: Client;
let author: TestUser;
let postPath: string;
let postId: string;

beforeAll(async () => {
  server = await startTestServer();
  api = client(server.url);
  const admin = await signInAdmin(server, api);
  const category = (await addCategory(api, admin, "Talk")).title;
  author = await buildUser(server, api);
  const post = await addPost(api, author, { title: "A busy thread", category });
  postId = post._id;
  postPath = `/posts/details/${postId}`;
  for (let n = 1; n <= COMMENTS; n += 1) {
    await addComment(api, author, postId, `Comment number ${String(n)}.`);
  }
});
afterAll(async () => {
  await server.close();
});

async function page(path: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.url}${path}`, { headers });
  expect(response.status).toBe(200);
  return response.text();
}

const shown = (html: string) =>
  [...html.matchAll(/<p>Comment number (\d+)\.<\/p>/g)].map((match) => Number(match[1]));

const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, index) => from + index);

describe("comment pages on a post", () => {
  it("treat a missing, malformed or too large page number as the newest page", async () => {
    for (const query of ["", "?comments=abc", "?comments=0", "?comments=-1", "?comments=99"]) {
      expect(shown(await page(`${postPath}${query}`)), query).toEqual(range(101, 120));
    }
  });

  it("show the newest comments first, oldest first within the page, with links to the others", async () => {
    const html = await page(postPath);
    expect(html).toContain('aria-label="Comment pages"');
    expect(html).toContain(`href="${postPath}?comments=1#comments-title"`);
    expect(html).toContain(`href="${postPath}?comments=2#comments-title"`);
    // The newest page is the bare address, so a new comment is seen where it was written.
    expect(html).not.toContain(`?comments=3`);
    expect(html).toMatch(new RegExp(`${String(COMMENTS)}(<!-- -->)? (<!-- -->)?comments`));
  });

  it("page through the older comments", async () => {
    expect(shown(await page(`${postPath}?comments=1`))).toEqual(range(1, 50));
    expect(shown(await page(`${postPath}?comments=2`))).toEqual(range(51, 100));
  });

  it("give the author the edit and delete tools on every comment of the page, and no dialogs until asked", async () => {
    const html = await page(postPath, { cookie: `session=${author.token}` });
    expect(html.match(/aria-label="Delete comment"/g)).toHaveLength(20);
    expect(html).not.toContain("Are you sure?");
  });

  it("keep every comment in the API's answer", async () => {
    const response = await fetch(`${server.url}/api/posts/${postId}`);
    const post = (await response.json()) as { comments: unknown[] };
    expect(post.comments).toHaveLength(COMMENTS);
  });
});
