import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildUser, signInAdmin, type TestUser } from "../support/factories.js";
import { client, type Client } from "../support/http.js";
import { addCategory, addPost } from "../support/post-fixtures.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

let server: TestServer;
let api: Client;
let admin: TestUser;
let author: TestUser;

beforeAll(async () => {
  server = await startTestServer();
  api = client(server.url);
  admin = await signInAdmin(server, api);
  author = await buildUser(server, api);
  await addCategory(api, admin, "Travel");
  await addCategory(api, admin, "Empty Shelf");
  await addPost(api, author, { title: "A trip", category: "Travel" });
});
afterAll(() => server.close());

/** The server's render of a page, as an anonymous visitor (or a crawler) gets it. */
async function page(path: string) {
  const response = await fetch(`${server.url}${path}`, { redirect: "manual" });
  return {
    status: response.status,
    location: response.headers.get("location"),
    html: await response.text(),
  };
}

const titleOf = (html: string) => /<title>([^<]*)<\/title>/.exec(html)?.[1];
const canonicalOf = (html: string) => /<link rel="canonical" href="([^"]*)"/.exec(html)?.[1];

describe("a category's page", () => {
  it("is not found for text that no category or post has, whatever it says", async () => {
    for (const text of ["Free Money", "<b>Bold</b>", "Travel Deals"]) {
      const path = `/posts/categories/${encodeURIComponent(text)}`;
      const { status, html } = await page(path);
      expect(status, path).toBe(404);
      expect(html).toContain("Page Not Found");
      expect(canonicalOf(html)).toBeUndefined();
      expect(html).not.toContain(encodeURIComponent(text));
      expect((await page(`${path}.data`)).status, `${path}.data`).toBe(404);
    }
  });

  it("sends another spelling of a category's title to its own page", async () => {
    const lower = await page("/posts/categories/%20travel%20");
    expect(lower.status).toBe(302);
    expect(lower.location).toBe("/posts/categories/Travel");
    expect((await page("/posts/categories/TRAVEL?page=2")).location).toBe(
      "/posts/categories/Travel?page=2",
    );
  });

  it("is the category's, with its posts, or says there are none yet", async () => {
    const travel = await page("/posts/categories/Travel");
    expect(travel.status).toBe(200);
    expect(titleOf(travel.html)).toBe(`Travel | ${server.config.site.title}`);
    expect(canonicalOf(travel.html)).toBe(`${server.config.publicUrl}/posts/categories/Travel`);
    expect(travel.html).toContain("A trip");

    const empty = await page("/posts/categories/Empty%20Shelf");
    expect(empty.status).toBe(200);
    expect(empty.html).toContain("No Posts Were Found");
  });

  it("stays while posts keep the title of a category deleted since, and goes with them", async () => {
    const retired = await addCategory(api, admin, "Retired");
    const post = await addPost(api, author, { title: "Kept its tag", category: "Retired" });
    const deleted = await api.delete(`/api/categories/${retired._id}`, { token: admin.token });
    expect(deleted.status).toBe(200);

    const kept = await page("/posts/categories/Retired");
    expect(kept.status).toBe(200);
    expect(kept.html).toContain("Kept its tag");

    expect((await api.delete(`/api/posts/${post._id}`, { token: author.token })).status).toBe(200);
    expect((await page("/posts/categories/Retired")).status).toBe(404);
  });
});
