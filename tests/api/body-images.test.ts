import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildUser, signInAdmin, type TestUser } from "../support/factories.js";
import { client, type Client, type Reply } from "../support/http.js";
import {
  EXIF_MARKER,
  fetchServed,
  filesOfImage,
  jpegWithExif,
  pngClaiming,
  pngImage,
  pngOfSize,
  uploadedFiles,
} from "../support/images.js";
import { failOnServerErrors } from "../support/server-errors.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

let server: TestServer;
let api: Client;
let admin: TestUser;
let writer: TestUser;

beforeAll(async () => {
  server = await startTestServer();
  api = client(server.url);
  admin = await signInAdmin(server, api);
  writer = await buildUser(server, api);
});
afterAll(() => server.close());
failOnServerErrors(() => server);

interface Uploaded {
  url: string;
  width: number;
  height: number;
}

const upload = async (
  user: TestUser | undefined,
  bytes: Buffer,
  file: { filename?: string; contentType?: string; field?: string } = {},
) =>
  api.form<Uploaded>(
    "POST",
    "/api/posts/images",
    { file: { bytes, filename: "picture.png", ...file } },
    { token: user?.token },
  );

const bodyImageRows = () =>
  server.app.deps.db.selectFrom("body_images").selectAll().orderBy("created_at").execute();

/** Sends an upload that must be refused; checks the answer and that nothing was stored. */
async function expectRefused(send: () => Promise<Reply>, status: number, message: string) {
  const [files, rows] = [await uploadedFiles(server), await bodyImageRows()];
  const reply = await send();
  expect(reply.status, reply.text).toBe(status);
  expect(reply.body).toEqual(
    status === 401 ? { message } : { message, errors: { image: message } },
  );
  expect(await uploadedFiles(server)).toEqual(files);
  expect(await bodyImageRows()).toEqual(rows);
}

describe("POST /api/posts/images refuses", () => {
  it("a signed-out upload with 401", async () => {
    const png = await pngImage();
    await expectRefused(() => upload(undefined, png), 401, "No token provided, please log in");
    const forged = { ...writer, token: "not-a-token" };
    const reply = await upload(forged, png);
    expect(reply.status, reply.text).toBe(401);
  });

  it("a form without the image field with 400 naming it", async () => {
    await expectRefused(
      () => api.form("POST", "/api/posts/images", { fields: { x: "y" } }, { token: writer.token }),
      400,
      "image is required",
    );
    const png = await pngImage();
    await expectRefused(() => upload(writer, png, { field: "photo" }), 400, "image is required");
    await expectRefused(
      () => api.post("/api/posts/images", { image: "x" }, { token: writer.token }),
      400,
      "image is required",
    );
  });

  it("a file that is not an image, whatever its name and type say, with 415", async () => {
    const script = Buffer.from("<svg xmlns='http://www.w3.org/2000/svg' onload='alert(1)'/>");
    await expectRefused(
      () => upload(writer, script, { filename: "x.png", contentType: "image/png" }),
      415,
      "Unsupported File Format",
    );
    const webp = await sharp({
      create: { width: 8, height: 8, channels: 3, background: "#fff" },
    })
      .webp()
      .toBuffer();
    await expectRefused(
      () => upload(writer, webp, { filename: "x.webp", contentType: "image/webp" }),
      415,
      "Unsupported File Format",
    );
  });

  it("a file over the size limit with 413", async () => {
    const big = await pngOfSize(7_000_001);
    await expectRefused(() => upload(writer, big), 413, "File size is too large");
  });

  it("a decompression bomb with 400", async () => {
    await expectRefused(
      () => upload(writer, pngClaiming(50_000, 50_000)),
      400,
      "Image dimensions are too large",
    );
  });
});

describe("POST /api/posts/images", () => {
  it("stores the widths of a post image, without metadata, and answers 201 {url, width, height}", async () => {
    const reply = await upload(writer, await jpegWithExif(), {
      filename: "photo.jpg",
      contentType: "image/jpeg",
    });
    expect(reply.status, reply.text).toBe(201);
    expect(Object.keys(reply.body).sort()).toEqual(["height", "url", "width"]);
    // Turned by its EXIF orientation: 320 wide, 640 high.
    expect(reply.body).toMatchObject({ width: 320, height: 640 });
    expect(reply.body.url).toMatch(/\/uploads\/images\/[0-9a-f-]{36}\/lg\.webp$/);
    expect((await filesOfImage(server, reply.body.url)).map((file) => file.split("/")[2])).toEqual([
      "lg.webp",
      "md.webp",
      "sm.webp",
    ]);
    const served = await fetchServed(server, reply.body.url);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("image/webp");
    expect(served.bytes.includes(EXIF_MARKER)).toBe(false);
    const meta = await sharp(served.bytes).metadata();
    expect([meta.width, meta.height, meta.exif]).toEqual([320, 640, undefined]);
    const [row] = (await bodyImageRows()).filter((image) =>
      reply.body.url.includes(image.image_key),
    );
    expect(row).toMatchObject({ uploader_id: writer.id, post_id: null, width: 320, height: 640 });
  });

  it("gives the size of the largest stored width for a large picture", async () => {
    const reply = await upload(admin, await pngImage(2400, 1000));
    expect(reply.status, reply.text).toBe(201);
    expect(reply.body).toMatchObject({ width: 1200, height: 500 });
  });
});
