import { readdir } from "node:fs/promises";
import path from "node:path";
import { crc32, deflateSync } from "node:zlib";
import sharp from "sharp";
import type { TestServer } from "./test-server.js";

/** Text hidden in the EXIF of `jpegWithExif`; no stored or served copy may contain it. */
export const EXIF_MARKER = "secret-exif-marker";

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const solid = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: 40, g: 110, b: 200 } } });

export const pngImage = (width = 64, height = 48) => solid(width, height).png().toBuffer();
export const gifImage = (width = 64, height = 48) => solid(width, height).gif().toBuffer();
export const webpImage = (width = 64, height = 48) => solid(width, height).webp().toBuffer();

/**
 * A JPEG stored as 640x320 with EXIF orientation 6, so it shows turned a quarter: 320 wide and
 * 640 high. Its EXIF also carries EXIF_MARKER.
 */
export const jpegWithExif = () =>
  solid(640, 320)
    .jpeg()
    .withMetadata({ orientation: 6 })
    .withExif({ IFD0: { Copyright: EXIF_MARKER } })
    .toBuffer();

function pngChunk(type: string, data: Buffer) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A small, well-formed PNG whose header claims any canvas size (a decompression bomb's shape). */
export function pngClaiming(width: number, height: number) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // truecolour; compression, filter and interlace stay 0
  return Buffer.concat([
    PNG_SIGNATURE,
    pngChunk("IHDR", header),
    pngChunk("IDAT", deflateSync(Buffer.alloc(1024))),
    pngChunk("IEND", Buffer.alloc(0)),
  ]);
}

/**
 * A tiny GIF whose screen and only frame claim any size up to 65535 each way (a decompression
 * bomb's shape): a two-colour palette and a few bytes of picture data.
 */
export function gifClaiming(width: number, height: number) {
  const size = Buffer.alloc(4);
  size.writeUInt16LE(width, 0);
  size.writeUInt16LE(height, 2);
  return Buffer.concat([
    Buffer.from("GIF89a", "latin1"),
    size,
    Buffer.from([0x80, 0, 0]), // a global palette of 2 colours
    Buffer.from([0, 0, 0, 255, 255, 255]),
    Buffer.from([0x2c, 0, 0, 0, 0]), // image descriptor at 0,0
    size,
    Buffer.from([0, 2, 2, 0x44, 0x01, 0, 0x3b]), // LZW data, end of image, trailer
  ]);
}

/**
 * A complete, black 16-bit RGB PNG (6 bytes a pixel once decoded) of any size, a few hundred KB
 * even at 6300x6300: a decompression bomb that passes a cap on pixels alone. Made a strip at a time.
 */
export const sixteenBitPng = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: 0, g: 0, b: 0 } } })
    .toColourspace("rgb16")
    .png({ compressionLevel: 9 })
    .toBuffer();

/** A real PNG followed by zero bytes up to exactly `size` bytes (decoders ignore what follows IEND). */
export async function pngOfSize(size: number) {
  const png = await pngImage(8, 8);
  return Buffer.concat([png, Buffer.alloc(size - png.length)]);
}

/** Every file under DATA_DIR/uploads, relative to it, sorted. */
export async function uploadedFiles(server: TestServer) {
  const root = path.join(server.dataDir, "uploads");
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)))
    .sort();
}

/** The folder under DATA_DIR/uploads that holds every variant of the image behind a served URL. */
export function imageFolderOf(url: string) {
  const match = /\/uploads\/(images\/[^/]+)\/[^/]+$/.exec(new URL(url).pathname);
  if (!match?.[1]) throw new Error(`not an uploaded image url: ${url}`);
  return match[1];
}

/** The stored files of one image (by its served URL or its storage key), relative to uploads. */
export async function filesOfImage(server: TestServer, urlOrKey: string) {
  const folder = urlOrKey.startsWith("http") ? imageFolderOf(urlOrKey) : urlOrKey;
  return (await uploadedFiles(server)).filter((file) => file.startsWith(`${folder}/`));
}

/** Fetches a served file as bytes (the JSON client reads text). Same origin as the test server. */
export async function fetchServed(server: TestServer, url: string) {
  const response = await fetch(`${server.url}${new URL(url).pathname}`);
  return {
    status: response.status,
    headers: response.headers,
    bytes: Buffer.from(await response.arrayBuffer()),
  };
}
