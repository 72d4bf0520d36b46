import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildUser, signInAdmin, type TestUser } from "../support/factories.js";
import { client } from "../support/http.js";
import { addCategory, addPost, type PostDetail } from "../support/post-fixtures.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

// No browser: the server-side renderer's own bookkeeping. A render's abort timer holds the whole
// render (its data and tree) until it fires, so one left running per page kept every page of the
// last 11 seconds in memory: hundreds of MB under load. The build must clear it once a page is done.

let server: TestServer;
let member: TestUser;
let post: PostDetail;

beforeAll(async () => {
  server = await startTestServer();
  const api = client(server.url);
  const admin = await signInAdmin(server, api);
  await addCategory(api, admin, "Food");
  member = await buildUser(server, api);
  post = await addPost(api, member, { category: "Food" });
});
afterAll(() => server.close());

const pendingTimers = () =>
  process.getActiveResourcesInfo().filter((resource) => resource === "Timeout").length;

describe("rendering a page", () => {
  it("leaves no timer behind once the page is sent", async () => {
    const render = async (path: string) => {
      const response = await fetch(`${server.url}${path}`, {
        headers: { cookie: `session=${member.token}` },
      });
      expect(response.status, path).toBe(200);
      await response.text();
    };
    await render("/"); // first render loads modules and opens pools
    const before = pendingTimers();
    for (let i = 0; i < 10; i += 1) {
      await render("/");
      await render(`/posts/details/${post._id}`);
    }
    await new Promise((resolve) => setImmediate(resolve));
    expect(pendingTimers() - before).toBeLessThan(5);
  });
});
