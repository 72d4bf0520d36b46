import type sharpModule from "sharp";
import type { CoreDeps } from "../deps.js";
import { DomainError, invalid, tooLarge, unavailable, unsupported } from "../shared/errors.js";
import { newId } from "../shared/ids.js";
import { lazyModule } from "../../lib/lazy-module.js";
import { NoFreeSlot, workSlots } from "../shared/work-slots.js";
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
/**
 * What one decode may hold in memory: the largest 8-bit colour photo the pixel cap admits (3 bytes a
 * pixel). A 16-bit PNG (6 bytes a pixel) or a GIF (decoded as RGBA) gets fewer pixels for it.
 */
export const MAX_DECODED_BYTES = MAX_IMAGE_PIXELS * 3;
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
  /** The size of the largest variant. */
  width: number;
  height: number;
}

const BYTES_PER_SAMPLE: Partial<Record<string, number>> = {
  uchar: 1,
  char: 1,
  ushort: 2,
  short: 2,
};

/** The bytes the decoder holds for the first frame (the only one read) at its full size. */
function decodedBytes(type: ImageType, { width, height, channels, depth }: sharpModule.Metadata) {
  // libvips' GIF decoder draws every frame in RGBA, whatever the palette says.
  const samples = type === "gif" ? 4 : channels;
  return width * height * samples * (BYTES_PER_SAMPLE[depth] ?? 8);
}

/**
 * Uploads that may wait for their turn to decode, each holding its bytes (up to 7 MB): a decode
 * takes a fraction of a second, so the last of them waits seconds, well within the idle limit.
 */
const DECODES_WAITING_MAX = 16;

/**
 * One decode at a time for the whole process: each may hold up to MAX_DECODED_BYTES, and each
 * holds a thread of libuv's small pool (which static files and the file system share) for as long
 * as it runs. The rest wait their turn holding only their upload.
 */
const decoding = workSlots(1, { maxWaiting: DECODES_WAITING_MAX });
/** Nobody reads this answer: its client left while the upload waited its turn. */
const cancelled = () => unavailable("The upload was cancelled");
const busy = () =>
  unavailable("Too many images are being processed just now, please try again in a moment");

const LARGEST_WIDTH = Math.max(...IMAGE_VARIANTS.map(({ width }) => width));

/**
 * Verifies an upload by its bytes and re-encodes it as WebP at each variant width (never
 * enlarged), oriented by its EXIF and stripped of all metadata. Waits for its turn to decode;
 * `signal` says the caller has gone, and a caller that left while waiting is not decoded for.
 */
export async function encodeImage(bytes: Buffer, signal?: AbortSignal): Promise<EncodedImage> {
  const type = sniffImageType(bytes);
  if (!type) throw unsupported();
  // The header alone gives the size (nothing is decoded), so a huge canvas is refused at once with
  // its own message, without waiting in the queue; the decoder keeps the pixel limit as well.
  const header = await sharp()(bytes, { limitInputPixels: false })
    .metadata()
    .catch(() => {
      throw unsupported();
    });
  const { width, height } = header;
  if (!width || !height) throw unsupported();
  if (width * height > MAX_IMAGE_PIXELS || decodedBytes(type, header) > MAX_DECODED_BYTES) {
    throw invalid(imageTooLargeMessage);
  }
  return decoding
    .run(async () => {
      if (signal?.aborted) throw cancelled();
      return encodeVariants(bytes).catch(() => {
        throw unsupported();
      });
    }, signal)
    .catch((error: unknown) => {
      if (error instanceof NoFreeSlot) throw busy();
      // A caller that left while waiting gave up its place in the line.
      if (signal?.aborted && !(error instanceof DomainError)) throw cancelled();
      throw error;
    });
}

/**
 * Decodes once, straight down to the largest width (the full-size picture is never held as a
 * whole unless its format needs it), and makes every width from that.
 */
async function encodeVariants(bytes: Buffer): Promise<EncodedImage> {
  const { data, info } = await sharp()(bytes, {
    limitInputPixels: MAX_IMAGE_PIXELS,
    failOn: "error",
  })
    .rotate()
    .resize({ width: LARGEST_WIDTH, withoutEnlargement: true })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const largest = { raw: { width: info.width, height: info.height, channels: info.channels } };
  const variants: EncodedImage["variants"] = [];
  // One after the other: in parallel they would hold more of libuv's pool for little gain.
  for (const { name, width } of IMAGE_VARIANTS) {
    const body = await sharp()(data, largest)
      .resize({ width, withoutEnlargement: true })
      .webp({ quality: 80 })
      .toBuffer();
    variants.push({ name, body });
  }
  return { variants, width: info.width, height: info.height };
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
  signal?: AbortSignal,
): Promise<string> {
  if (bytes.length > maxBytes) throw tooLarge();
  return putImage(storage, await encodeImage(bytes, signal));
}

/** As `storeImage`, with the stored picture's size (its largest width) beside its key. */
export async function storeSizedImage(
  storage: Storage,
  bytes: Buffer,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<{ key: string; width: number; height: number }> {
  if (bytes.length > maxBytes) throw tooLarge();
  const encoded = await encodeImage(bytes, signal);
  return { key: await putImage(storage, encoded), width: encoded.width, height: encoded.height };
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
