import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildUser } from "../support/factories.js";
import { client, type Client } from "../support/http.js";
import { gifClaiming } from "../support/images.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

// No browser: the server's render slots (decision 005). A page form that uploads an image waits for
// its turn to decode in the line uploads share; it must not hold a render slot meanwhile, or a few
// uploads of large images keep every reader of the site waiting.

let server: TestServer;
let api: Client;

beforeAll(async () => {
  // One slot, so that one waiting upload would hold them all.
  server = await startTestServer({}, { renderSlots: 1 });
  api = client(server.url);
});
afterAll(() => server.close());

describe("a page form's upload", () => {
  it("waits for its decode without holding a render slot: pages are served meanwhile", async () => {
    const writer = await buildUser(server, api);
    // The first render loads the build's modules: not what is measured.
    expect((await fetch(`${server.url}/posts`)).status).toBe(200);

    // The profile page's photo form, as a browser without JavaScript sends it, six times over with
    // the heaviest image the caps admit: decoded one at a time, they take a second or more.
    const done: string[] = [];
    const heavy = new Uint8Array(gifClaiming(5400, 5400));
    const uploads = [1, 2, 3, 4, 5, 6].map(async () => {
      const form = new FormData();
      form.set("intent", "photo");
      form.set("image", new Blob([heavy], { type: "image/gif" }), "me.gif");
      const response = await fetch(`${server.url}/profile/${writer.id}`, {
        method: "POST",
        headers: { origin: server.config.publicUrl, cookie: `session=${writer.token}` },
        body: form,
      });
      await response.text();
      done.push("upload");
      return response.status;
    });
    // Let them be read and start their work first.
    await new Promise((resolve) => setTimeout(resolve, 200));

    // A reader's page, rendered (the first of its address, so not a kept one) while they wait.
    const page = await fetch(`${server.url}/posts?page=1`);
    expect(page.status).toBe(200);
    await page.text();
    done.push("page");

    expect(await Promise.all(uploads)).toEqual([200, 200, 200, 200, 200, 200]);
    const profile = await api.get<{ profilePhoto: { url: string } }>(
      `/api/users/profile/${writer.id}`,
    );
    expect(profile.body.profilePhoto.url).toContain("/uploads/images/");
    // Served while the uploads waited, not behind them: each held the one slot through its decode.
    expect(done.indexOf("page")).toBeLessThan(3);
  }, 60_000);
});
