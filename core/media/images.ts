import type sharpModule from "sharp";
import type { CoreDeps } from "../deps.js";
import { invalid, tooLarge, unsupported } from "../shared/errors.js";
import { newId } from "../shared/ids.js";
import { lazyModule } from "../shared/lazy-module.js";
import type { Storage } from "./storage.js";

const loadSharp = lazyModule<typeof sharpModule>("sharp");
let configured = false;
/**
 * The image codec, set up once: libvips' operation cache (50 MB by default) only helps a process
 * that processes the same image again, and every upload here is new, so it would hold memory for
 * nothing.
 */
function sharp() {
  const codec = loadSharp();
  if (!configured) {
    codec.cache(false);
    configured = true;
  }
  return codec;
}

/** Guards against decompression bombs: a small file that claims a huge canvas. */
export const MAX_IMAGE_PIXELS = 40_000_000;
export const imageTooLargeMessage = "Image dimensions are too large";

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

export interface EncodedImage {
  variants: { name: ImageVariant; body: Buffer }[];
}

/**
 * Verifies an upload by its bytes and re-encodes it as WebP at each variant width (never
 * enlarged), oriented by its EXIF and stripped of all metadata.
 */
export async function encodeImage(bytes: Buffer): Promise<EncodedImage> {
  if (!sniffImageType(bytes)) throw unsupported();
  // The header alone gives the size (nothing is decoded), so a huge canvas gets its own message;
  // the decoder below keeps the pixel limit as well.
  const { width, height } = await sharp()(bytes, { limitInputPixels: false })
    .metadata()
    .catch(() => {
      throw unsupported();
    });
  if (!width || !height) throw unsupported();
  if (width * height > MAX_IMAGE_PIXELS) throw invalid(imageTooLargeMessage);
  const input = sharp()(bytes, { limitInputPixels: MAX_IMAGE_PIXELS, failOn: "error" });

  const variants = await Promise.all(
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
  return { variants };
}

/** Stores encoded variants under a fresh key and returns it. */
export async function putImage(storage: Storage, image: EncodedImage): Promise<string> {
  const imageKey = `images/${newId()}`;
  await Promise.all(
    image.variants.map(({ name, body }) =>
      storage.put(variantKey(imageKey, name), body, "image/webp"),
    ),
  );
  return imageKey;
}

/**
 * Verifies, re-encodes and stores an upload of at most `maxBytes`. Returns the key of the stored
 * image. (The API's parser already stops a larger stream early; this holds for every caller.)
 */
export async function storeImage(
  storage: Storage,
  bytes: Buffer,
  maxBytes: number,
): Promise<string> {
  if (bytes.length > maxBytes) throw tooLarge();
  return putImage(storage, await encodeImage(bytes));
}

export const imageUrl = (storage: Storage, imageKey: string, variant: ImageVariant = "lg") =>
  storage.url(variantKey(imageKey, variant));

export async function deleteImages(storage: Storage, imageKeys: readonly (string | null)[]) {
  const keys = imageKeys
    .filter((key): key is string => key !== null)
    .flatMap((key) => IMAGE_VARIANTS.map(({ name }) => variantKey(key, name)));
  if (keys.length > 0) await storage.delete(keys);
}

/**
 * Removes the files of images no row refers to (any more, or ever). Called once the change that let
 * go of them is settled, so it cannot fail that change: if the storage refuses, the request still
 * succeeds, the log says what was left, and the sweep removes it later (core/media/sweep.ts).
 */
export async function discardImages(
  deps: Pick<CoreDeps, "storage" | "log">,
  imageKeys: readonly (string | null)[],
) {
  try {
    await deleteImages(deps.storage, imageKeys);
  } catch (error) {
    deps.log.warn({ err: error, imageKeys }, "image files left for the sweep: storage refused");
  }
}

/**
 * Points a row at a newly stored image and discards the files of the one it replaced. The swap is
 * a compare-and-set on the key that was read, retried when another replacement got there first, so
 * overlapping uploads never strand files. Returns false (and discards the new files) when the row
 * is gone.
 */
export async function swapImage(
  deps: Pick<CoreDeps, "storage" | "log">,
  newKey: string,
  row: {
    currentKey(): Promise<string | null | undefined>;
    setKeyIf(expected: string | null): Promise<boolean>;
  },
): Promise<boolean> {
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const old = await row.currentKey();
    if (old === undefined) {
      await discardImages(deps, [newKey]);
      return false;
    }
    if (await row.setKeyIf(old)) {
      await discardImages(deps, [old]);
      return true;
    }
  }
  await discardImages(deps, [newKey]);
  throw new Error("Image replacement lost the race 20 times");
}
