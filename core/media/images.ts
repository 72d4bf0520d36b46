import sharp from "sharp";
import { invalid, unsupported } from "../shared/errors.js";
import { newId } from "../shared/ids.js";
import type { Storage } from "./storage.js";

/** Guards against decompression bombs: a small file that claims a huge canvas. */
export const MAX_IMAGE_PIXELS = 40_000_000;

export type ImageType = "jpeg" | "png" | "gif";

/** The type of an upload, read from its first bytes; the file name and header count for nothing. */
export function sniffImageType(bytes: Buffer): ImageType | undefined {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff)
    return "jpeg";
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return "png";
  const head = bytes.subarray(0, 6).toString("latin1");
  if (head === "GIF87a" || head === "GIF89a") return "gif";
  return undefined;
}

export const IMAGE_VARIANTS = [
  { name: "sm", width: 400 },
  { name: "md", width: 800 },
  { name: "lg", width: 1200 },
] as const;
export type ImageVariant = (typeof IMAGE_VARIANTS)[number]["name"];

const variantKey = (imageKey: string, variant: ImageVariant) => `${imageKey}/${variant}.webp`;

/**
 * Verifies an upload and stores it re-encoded as WebP at each variant width (never enlarged),
 * oriented by its EXIF and stripped of all metadata. Returns the key of the stored image.
 */
export async function storeImage(storage: Storage, bytes: Buffer): Promise<string> {
  if (!sniffImageType(bytes)) throw unsupported();
  const input = sharp(bytes, { limitInputPixels: MAX_IMAGE_PIXELS, failOn: "error" });
  const meta = await input.metadata().catch(() => {
    throw unsupported();
  });
  const { width, height } = meta;
  if (!width || !height) throw unsupported();
  if (width * height > MAX_IMAGE_PIXELS) throw invalid("Image dimensions are too large");

  const encoded = await Promise.all(
    IMAGE_VARIANTS.map(async ({ name, width: target }) => ({
      name,
      body: await input
        .clone()
        .rotate()
        .resize({ width: target, withoutEnlargement: true })
        .webp({ quality: 80 })
        .toBuffer(),
    })),
  ).catch(() => {
    throw unsupported();
  });

  const imageKey = `images/${newId()}`;
  await Promise.all(
    encoded.map(({ name, body }) => storage.put(variantKey(imageKey, name), body, "image/webp")),
  );
  return imageKey;
}

export const imageUrl = (storage: Storage, imageKey: string, variant: ImageVariant = "lg") =>
  storage.url(variantKey(imageKey, variant));

export async function deleteImages(storage: Storage, imageKeys: readonly (string | null)[]) {
  const keys = imageKeys
    .filter((key): key is string => key !== null)
    .flatMap((key) => IMAGE_VARIANTS.map(({ name }) => variantKey(key, name)));
  if (keys.length > 0) await storage.delete(keys);
}
