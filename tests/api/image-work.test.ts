import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { buildUser, type TestUser } from "../support/factories.js";
import { fetchServed, filesOfImage, gifClaiming, pngImage } from "../support/images.js";
import { failOnServerErrors } from "../support/server-errors.js";
import { openTestSite } from "../support/site.js";

// The image work itself: which sizes the caps admit, and the queue uploads wait in for their turn
// to be decoded (one at a time across the process).

const { server, api } = await openTestSite();
failOnServerErrors(() => server);

const photoKeyOf = async (user: TestUser) =>
  (
    await server.app.deps.db
      .selectFrom("users")
      .select("photo_key")
      .where("id", "=", user.id)
      .executeTakeFirstOrThrow()
  ).photo_key;

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

describe("an upload waiting for its turn", () => {
  it("is dropped, not stored, when its client leaves before its turn comes", async () => {
    const busy = await buildUser(server, api);
    const leaver = await buildUser(server, api);
    // The heaviest images the caps admit (117 MB each once decoded): their decodes, one at a time,
    // keep the queue busy for a second or more.
    const heavy = gifClaiming(5400, 5400);
    const ahead = [1, 2, 3, 4, 5, 6].map(() => sendPhoto(busy, heavy, "image/gif"));
    // Let them be read and queued first: sent together, the small upload can overtake them.
    await new Promise((resolve) => setTimeout(resolve, 150));

    const leaving = new AbortController();
    const form = new FormData();
    form.append("image", new Blob([new Uint8Array(await pngImage(64, 48))]), "photo.png");
    const left = fetch(`${server.url}/api/users/profile/profile-photo`, {
      method: "POST",
      headers: { authorization: `Bearer ${leaver.token}` },
      body: form,
      signal: leaving.signal,
    }).catch((error: unknown) => error);
    // Long enough for the small upload to be read and queued, far shorter than the decodes ahead.
    await new Promise((resolve) => setTimeout(resolve, 200));
    leaving.abort();
    expect(await left).toMatchObject({ name: "AbortError" });

    for (const reply of await Promise.all(ahead)) expect(reply.status, reply.text).toBe(200);
    // Queued after the one that left: once it is done, that one's turn has passed.
    const after = await sendPhoto(busy, await pngImage(32, 32), "image/png");
    expect(after.status, after.text).toBe(200);
    expect(await photoKeyOf(leaver)).toBeNull();
  }, 60_000);
});
