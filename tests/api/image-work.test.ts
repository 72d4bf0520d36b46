import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildUser, type TestUser } from "../support/factories.js";
import { client, type Client } from "../support/http.js";
import { fetchServed, filesOfImage } from "../support/images.js";
import { failOnServerErrors } from "../support/server-errors.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

// The image work itself: which sizes the caps admit.

let server: TestServer;
let api: Client;

beforeAll(async () => {
  server = await startTestServer();
  api = client(server.url);
});
afterAll(() => server.close());
failOnServerErrors(() => server);

const sendPhoto = (user: TestUser, bytes: Buffer, type: string) =>
  api.form<{ profilePhoto: { url: string } }>(
    "POST",
    "/api/users/profile/profile-photo",
    { file: { bytes, filename: "photo", contentType: type } },
    { token: user.token },
  );

describe("the caps on image size", () => {
  it.each([
    { kind: "a 24-megapixel phone photo (72 MB decoded)", width: 6000, height: 4000 },
    { kind: "a 40-megapixel JPEG, the most the pixel cap admits", width: 7740, height: 5160 },
  ])("admit $kind at every width", async ({ width, height }) => {
    const user = await buildUser(server, api);
    const jpeg = await sharp({
      create: { width, height, channels: 3, background: { r: 30, g: 120, b: 60 } },
    })
      .jpeg()
      .toBuffer();
    const reply = await sendPhoto(user, jpeg, "image/jpeg");
    expect(reply.status, reply.text).toBe(200);
    const { url } = reply.body.profilePhoto;
    const files = await filesOfImage(server, url);
    expect(files.map((file) => file.split("/").pop())).toEqual(["lg.webp", "md.webp", "sm.webp"]);
    for (const [variant, variantWidth] of [
      ["sm", 400],
      ["md", 800],
      ["lg", 1200],
    ] as const) {
      const served = await fetchServed(server, url.replace(/[^/]+\.webp$/, `${variant}.webp`));
      const made = await sharp(served.bytes).metadata();
      expect(made).toMatchObject({ format: "webp", width: variantWidth });
      // In proportion, give or take the rounding of a pixel.
      expect(Math.abs(made.height - (height * variantWidth) / width)).toBeLessThan(1);
    }
  });
});
