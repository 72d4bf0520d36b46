import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo } from "../../bench/seed.js";
import { buildUser, signInAdmin } from "../support/factories.js";
import { client, type Client } from "../support/http.js";
import { addCategory, addPost } from "../support/post-fixtures.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

let server: TestServer;
let api: Client;
let hostileId: string;

beforeAll(async () => {
  server = await startTestServer();
  api = client(server.url);
  await seedDemo(server.app.deps.db, server.app.deps.storage, {
    users: 3,
    categories: 2,
    posts: 24,
    likes: 0,
    comments: 0,
  });
  const admin = await signInAdmin(server, api);
  const author = await buildUser(server, api);
  await addCategory(api, admin, "R&D <Lab>");
  const post = await addPost(api, author, {
    title: `</title><script>alert("x")</script> & more`,
    category: "R&D <Lab>",
    description: "Tom & Jerry \u0007 <b>bold</b>",
  });
  hostileId = post._id;
});
afterAll(() => server.close());

describe("feeds", () => {
  it("serves robots.txt pointing at the sitemap", async () => {
    const reply = await api.get("/robots.txt");
    expect(reply.status).toBe(200);
    expect(reply.text).toContain(`Sitemap: ${server.config.publicUrl}/sitemap.xml`);
    expect(reply.text).toContain("Disallow: /api/");
  });

  it("lists the 20 latest posts in RSS, escaped, with absolute links", async () => {
    const reply = await api.get("/rss.xml");
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toContain("application/rss+xml");
    expect(reply.text.match(/<item>/g)).toHaveLength(20);
    expect(reply.text).toContain(
      `<link>${server.config.publicUrl}/posts/details/${hostileId}</link>`,
    );
    expect(reply.text).not.toContain("<script>");
    expect(reply.text).not.toContain("</title><script>");
    expect(reply.text).toContain("&#60;/title&#62;&#60;script&#62;");
    expect(reply.text).not.toContain("\u0007");
    expect(reply.text).toContain("<category>R&#38;D &#60;Lab&#62;</category>");
  });

  it("lists every post and category in the sitemap", async () => {
    const reply = await api.get("/sitemap.xml");
    expect(reply.status).toBe(200);
    expect(reply.text.match(/<loc>[^<]*\/posts\/details\//g)).toHaveLength(25);
    expect(reply.text).toContain(
      `<loc>${server.config.publicUrl}/posts/categories/R%26D%20%3CLab%3E</loc>`,
    );
  });
});
