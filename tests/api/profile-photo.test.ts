import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { buildUser, type TestUser } from "../support/factories.js";
import { type ImageUpload } from "../support/http.js";
import {
  EXIF_MARKER,
  fetchServed,
  filesOfImage,
  gifImage,
  jpegWithExif,
  pngClaiming,
  pngImage,
  pngOfSize,
  uploadedFiles,
  webpImage,
} from "../support/images.js";
import { failOnServerErrors } from "../support/server-errors.js";
import { type ErrorBody } from "../support/post-fixtures.js";
import { openTestSite } from "../support/site.js";

const { server, api } = await openTestSite();
failOnServerErrors(() => server);

const PHOTO_PATH = "/api/users/profile/profile-photo";
const MAX_BYTES = 7_000_000;

interface PhotoReply {
  profilePhoto: { url: string };
  message: string;
}

const upload = (user: TestUser, file: ImageUpload) =>
  api.form<PhotoReply>("POST", PHOTO_PATH, { file }, { token: user.token });

const photoUrlOf = async (user: TestUser) =>
  (await api.get<{ profilePhoto: { url: string } }>(`/api/users/profile/${user.id}`)).body
    .profilePhoto.url;

/** Runs a refused upload and checks it left no file behind and no photo on the profile. */
async function expectRefused(user: TestUser, file: ImageUpload, status: number, message: string) {
  const before = await uploadedFiles(server);
  const reply = await upload(user, file);
  expect(reply.status, reply.text).toBe(status);
  expect(reply.body).toEqual({ message });
  expect(await uploadedFiles(server)).toEqual(before);
  expect(await photoUrlOf(user)).toBe(server.app.deps.site.defaultAvatarUrl);
}

describe("POST /api/users/profile/profile-photo: refusals", () => {
  let user: TestUser;
  beforeAll(async () => {
    user = await buildUser(server, api);
  });

  it("answers 401 without a token, and stores nothing", async () => {
    const reply = await api.form<ErrorBody>("POST", PHOTO_PATH, {
      file: { bytes: await pngImage() },
    });
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual({ message: "No token provided, please log in" });
    expect(await uploadedFiles(server)).toEqual([]);
  });

  it("answers 400 'image is required' for a form without a file", async () => {
    const reply = await api.form<ErrorBody>(
      "POST",
      PHOTO_PATH,
      { fields: { caption: "me" } },
      { token: user.token },
    );
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ message: "image is required" });
  });

  it("answers 400 'image is required' for a file in another field", async () => {
    await expectRefused(
      user,
      { bytes: await pngImage(), field: "photo" },
      400,
      "image is required",
    );
  });

  it("answers 400 'image is required' for a JSON body", async () => {
    const reply = await api.post<ErrorBody>(
      PHOTO_PATH,
      { image: (await pngImage()).toString("base64") },
      { token: user.token },
    );
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ message: "image is required" });
  });

  it("answers 400 'image is required' for an empty file", async () => {
    await expectRefused(user, { bytes: Buffer.alloc(0) }, 400, "image is required");
  });

  it.each([
    {
      kind: "a text file named photo.jpg",
      file: {
        bytes: Buffer.from("just some text, not a picture\n".repeat(20)),
        filename: "photo.jpg",
        contentType: "image/jpeg",
      },
    },
    {
      kind: "an SVG",
      file: {
        bytes: Buffer.from(
          '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>',
        ),
        filename: "photo.svg",
        contentType: "image/svg+xml",
      },
    },
    {
      kind: "an HTML file named photo.png",
      file: {
        bytes: Buffer.from("<!doctype html><html><body><script>alert(1)</script></body></html>"),
        filename: "photo.png",
        contentType: "image/png",
      },
    },
    {
      kind: "a file that starts like a JPEG but is not one",
      file: {
        bytes: Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(2000, 0x41)]),
        filename: "photo.jpg",
        contentType: "image/jpeg",
      },
    },
  ])("answers 415 'Unsupported File Format' for $kind", async ({ file }) => {
    await expectRefused(user, file, 415, "Unsupported File Format");
  });

  it("answers 415 for a real WebP image, a type the site does not take", async () => {
    const file = { bytes: await webpImage(), filename: "photo.webp", contentType: "image/webp" };
    await expectRefused(user, file, 415, "Unsupported File Format");
  });

  it("answers 415 for a PNG cut short", async () => {
    const whole = await sharp({
      create: { width: 300, height: 300, channels: 3, background: "#808080" },
    })
      .png({ compressionLevel: 0 })
      .toBuffer();
    await expectRefused(user, { bytes: whole.subarray(0, 20_000) }, 415, "Unsupported File Format");
  });

  it("answers 413 'File size is too large' above 7,000,000 bytes", async () => {
    const bytes = await pngOfSize(MAX_BYTES + 1);
    expect(bytes.length).toBe(7_000_001);
    await expectRefused(user, { bytes }, 413, "File size is too large");
  });

  it("refuses a PNG whose header claims 100000x100000 pixels with a 4xx", async () => {
    const before = await uploadedFiles(server);
    const reply = await upload(user, { bytes: pngClaiming(100_000, 100_000) });
    expect(reply.status, reply.text).toBeGreaterThanOrEqual(400);
    expect(reply.status, reply.text).toBeLessThan(500);
    expect(await uploadedFiles(server)).toEqual(before);
  });

  // The parser's own failures are bad requests, not server errors.
  it.each([
    { kind: "without a boundary", contentType: "multipart/form-data", body: "abc" },
    { kind: "with no parts", contentType: "multipart/form-data; boundary=xyz", body: "garbage" },
    {
      kind: "that ends inside a part",
      contentType: "multipart/form-data; boundary=xyz",
      body: '--xyz\r\nContent-Disposition: form-data; name="image"; filename="a.png"\r\n\r\nabc',
    },
  ])("answers 400 to a malformed multipart body $kind", async ({ contentType, body }) => {
    const reply = await api.raw("POST", PHOTO_PATH, body, {
      token: user.token,
      headers: { "content-type": contentType },
    });
    expect(reply.status, reply.text).toBe(400);
    expect(reply.body).toEqual({ message: expect.any(String) as unknown });
  });

  it("keeps answering after the refusals", async () => {
    const reply = await api.get("/healthz");
    expect(reply.status).toBe(200);
  });
});

describe("POST /api/users/profile/profile-photo: a stored photo", () => {
  it("is re-encoded as WebP, turned upright, stripped of EXIF and served immutable", async () => {
    const user = await buildUser(server, api);
    const jpeg = await jpegWithExif();
    // The premise: the upload carries the marker and a quarter-turn orientation.
    expect(jpeg.includes(EXIF_MARKER)).toBe(true);
    expect((await sharp(jpeg).metadata()).orientation).toBe(6);

    const reply = await upload(user, {
      bytes: jpeg,
      filename: "me.jpg",
      contentType: "image/jpeg",
    });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual({
      profilePhoto: { url: expect.stringMatching(/\.webp$/) as unknown },
      message: "Your profile photo uploaded successfully",
    });
    const { url } = reply.body.profilePhoto;
    expect(url.startsWith(`${server.config.publicUrl}/uploads/`)).toBe(true);

    const served = await fetchServed(server, url);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("image/webp");
    expect(served.headers.get("cache-control")).toContain("immutable");
    const meta = await sharp(served.bytes).metadata();
    expect(meta.format).toBe("webp");
    expect(meta.exif).toBeUndefined();
    expect(meta.orientation).toBeUndefined();
    expect({ width: meta.width, height: meta.height }).toEqual({ width: 320, height: 640 });
    expect(served.bytes.includes(EXIF_MARKER)).toBe(false);

    // Every stored variant, not only the served one, is clean.
    const files = await filesOfImage(server, url);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const stored = await fetchServed(server, `${server.url}/uploads/${file}`);
      expect(stored.status, file).toBe(200);
      expect(stored.bytes.includes(EXIF_MARKER), file).toBe(false);
      expect((await sharp(stored.bytes).metadata()).exif, file).toBeUndefined();
    }

    expect(await photoUrlOf(user)).toBe(url);
  });

  it("replaces the old photo: its files leave DATA_DIR/uploads and its url answers 404", async () => {
    const user = await buildUser(server, api);
    const first = await upload(user, { bytes: await pngImage(120, 90) });
    expect(first.status, first.text).toBe(200);
    const oldUrl = first.body.profilePhoto.url;
    const oldFiles = await filesOfImage(server, oldUrl);
    expect(oldFiles.length).toBeGreaterThan(0);

    const second = await upload(user, { bytes: await gifImage(), filename: "me.gif" });
    expect(second.status, second.text).toBe(200);
    const newUrl = second.body.profilePhoto.url;
    expect(newUrl).not.toBe(oldUrl);

    expect(await filesOfImage(server, oldUrl)).toEqual([]);
    const remaining = await uploadedFiles(server);
    for (const file of oldFiles) expect(remaining).not.toContain(file);
    expect((await fetchServed(server, oldUrl)).status).toBe(404);
    expect((await fetchServed(server, newUrl)).status).toBe(200);
    expect(await photoUrlOf(user)).toBe(newUrl);
  });

  it.each([
    { kind: "a PNG", bytes: () => pngImage(), filename: "me.png", contentType: "image/png" },
    { kind: "a GIF", bytes: () => gifImage(), filename: "me.gif", contentType: "image/gif" },
    {
      kind: "a JPEG named .jfif",
      bytes: () => jpegWithExif(),
      filename: "me.jfif",
      contentType: "image/jpeg",
    },
  ])("accepts $kind", async ({ bytes, filename, contentType }) => {
    const user = await buildUser(server, api);
    const reply = await upload(user, { bytes: await bytes(), filename, contentType });
    expect(reply.status, reply.text).toBe(200);
    const served = await fetchServed(server, reply.body.profilePhoto.url);
    expect(served.status).toBe(200);
    expect((await sharp(served.bytes).metadata()).format).toBe("webp");
  });

  it("accepts a file of exactly 7,000,000 bytes", async () => {
    const user = await buildUser(server, api);
    const bytes = await pngOfSize(MAX_BYTES);
    const reply = await upload(user, { bytes });
    expect(reply.status, reply.text).toBe(200);
  });
});
