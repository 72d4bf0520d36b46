import { readFile, realpath } from "node:fs/promises";
import path from "node:path";
import type { Kysely } from "kysely";
import { isTag, normalizeTag } from "../../contract/content.js";
import { BODY_IMAGE_MAX_BYTES, POST_TITLE_MAX } from "../../contract/limits.js";
import { withLineFeeds } from "../../contract/validation.js";
import type { Database } from "../../db/schema.js";
import type { CoreDeps } from "../deps.js";
import { encodeImage, imageUrl, putImage } from "../media/images.js";
import { DomainError } from "../shared/errors.js";
import type { BlogImportReport } from "./blog-import.js";
import type { ForeignBlog } from "./foreign.js";

// What an imported post's and an imported page's bodies go through alike (decision 019): the
// blog's own images stored here and the body's addresses rewritten to them.

/** Markdown links and images: `[text](url "title")`, `![alt](url)`. */
export const MARKDOWN_LINK = /(!?)\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(\s+"[^"]*")?\s*\)/g;
/** Markdown images: `![alt](url "title")`. */
const MARKDOWN_IMAGE = /!\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(\s+"[^"]*")?\s*\)/g;

/** What the report names: a post or a page of the source, by its slug or id. */
export interface ImportedItem {
  kind: "post" | "page";
  ref: string;
}

/** A body image stored for an item, with its size (the renderer reads it). */
export interface StoredBodyImage {
  key: string;
  width: number;
  height: number;
}

/** A post's or page's title here: spaces collapsed, "Untitled" for none, cut to the limit with "…". */
export function importedTitle(source: string) {
  const title = source.trim().replace(/\s+/g, " ");
  if (title === "") return "Untitled";
  return title.length > POST_TITLE_MAX ? `${title.slice(0, POST_TITLE_MAX - 1).trimEnd()}…` : title;
}

/** Whether the source's title had to be shortened to fit. */
export const titleShortened = (source: string) =>
  source.trim().replace(/\s+/g, " ").length > POST_TITLE_MAX;

/** A source's tag name as a tag here (`Edge Case` is `edge-case`); undefined when none can be. */
export function tagFrom(name: string): string | undefined {
  const tag = normalizeTag(name)
    .replace(/[^\p{L}\p{M}\p{N}]+/gu, "-")
    .replace(/^-+|-+$/g, "");
  return isTag(tag) ? tag : undefined;
}

/** WordPress's name for a resized copy of an upload: `photo-300x200.jpg`. */
const RESIZED = /-\d+x\d+(\.\w+)$/;

/**
 * The path inside the images folder that a source's image URL names: after `/content/images/`
 * (Ghost, also as `__GHOST_URL__/content/images/...`) or `/wp-content/uploads/` (WordPress).
 */
export function relativeImagePath(url: string): string | undefined {
  const bare = url.split(/[?#]/)[0] ?? "";
  const match = /(?:^|\/)(?:content\/images|wp-content\/uploads)\/(.+)$/.exec(bare);
  if (!match?.[1]) return undefined;
  try {
    const relative = decodeURIComponent(match[1]);
    return relative.split("/").includes("..") ? undefined : relative;
  } catch {
    return undefined;
  }
}

/** The links of a body that lead to paths of the old site this site does not have. */
export const strayLinks = (markdown: string) => [
  ...new Set(
    [...markdown.matchAll(MARKDOWN_LINK)]
      .filter(
        ([, bang, , url = ""]) =>
          bang === "" && /^\/(?!posts\/details\/|pages\/|uploads\/)/.test(url),
      )
      .map((match) => match[3] ?? ""),
  ),
];

/** Writes stored body images as uploads no post or page has claimed yet (the claim follows). */
export async function recordBodyImages(
  db: Kysely<Database>,
  images: readonly StoredBodyImage[],
  uploaderId: string | null,
  createdAt: string,
) {
  if (images.length === 0) return;
  await db
    .insertInto("body_images")
    .values(
      images.map((image) => ({
        image_key: image.key,
        uploader_id: uploaderId,
        post_id: null,
        width: image.width,
        height: image.height,
        created_at: createdAt,
        released_at: null,
      })),
    )
    .execute();
}

/**
 * The images of an import: each found in the folder given (never outside it), verified,
 * re-encoded and stored by the image pipeline as an upload; what cannot be is reported.
 */
export async function importedImages(
  deps: CoreDeps,
  blog: ForeignBlog,
  imagesDirOption: string | undefined,
  report: BlogImportReport,
) {
  const imagesDir = imagesDirOption ? await realpath(imagesDirOption) : undefined;

  /** Where in the images folder the source keeps the image at this address, if it says. */
  function sourceImagePath(url: string) {
    const bare = url.split(/[?#]/)[0] ?? "";
    const known = blog.imagePaths?.get(bare);
    if (known !== undefined) return known;
    // A resized copy sits beside its original: `photo-300x200.jpg` of `photo.jpg`.
    const original = blog.imagePaths?.get(bare.replace(RESIZED, "$1"));
    const name = bare.slice(bare.lastIndexOf("/") + 1);
    if (original !== undefined && RESIZED.test(name))
      return path.posix.join(path.posix.dirname(original), name);
    return relativeImagePath(url);
  }

  /** The file an image URL of the source names inside the images folder, if any. */
  async function fileOf(url: string): Promise<{ file?: string; reason: string }> {
    if (!imagesDir) return { reason: "no --images folder was given" };
    const relative = sourceImagePath(url);
    if (relative === undefined) return { reason: "not an image of the blog's own" };
    const candidates = [
      relative,
      // Ghost's resized copies, and WordPress's (`photo-300x200.jpg` of `photo.jpg`).
      relative.replace(/^size\/w\d+\//, ""),
      relative.replace(RESIZED, "$1"),
    ];
    for (const candidate of candidates) {
      const file = path.resolve(imagesDir, candidate);
      if (!file.startsWith(`${imagesDir}${path.sep}`)) return { reason: "outside the folder" };
      const found = await realpath(file).catch(() => undefined);
      if (found?.startsWith(`${imagesDir}${path.sep}`)) return { file: found, reason: "" };
    }
    return { reason: "not in the images folder" };
  }

  const missing = (item: ImportedItem, url: string, reason: string) =>
    report.missingImages.push({ kind: item.kind, ref: item.ref, url, reason });

  /** The image at `url` stored here, or undefined (reported) when it cannot be. */
  async function storedImage(item: ImportedItem, url: string, maxBytes: number) {
    const { file, reason } = await fileOf(url);
    if (!file) {
      missing(item, url, reason);
      return undefined;
    }
    const bytes = await readFile(file);
    if (bytes.length > maxBytes) {
      missing(item, url, "larger than uploads may be");
      return undefined;
    }
    try {
      const encoded = await encodeImage(bytes);
      return { key: await putImage(deps.storage, encoded), encoded };
    } catch (error) {
      const why = error instanceof DomainError ? error.message : "could not be read as an image";
      missing(item, url, why);
      return undefined;
    }
  }

  /**
   * The body as this site keeps it: the images of `source` (the body as the source has it) that
   * are the blog's own stored (each once, its key added to `stored` at once, so a failure after
   * can discard it), and `linked` (the body with its links led here) pointing at them.
   */
  async function localBody(item: ImportedItem, source: string, linked: string, stored: string[]) {
    const bodyImages: StoredBodyImage[] = [];
    const replacements = new Map<string, string>();
    const elsewhere = new Set<string>();
    for (const match of source.matchAll(MARKDOWN_IMAGE)) {
      const url = match[2] ?? "";
      if (replacements.has(url) || elsewhere.has(url)) continue;
      if (sourceImagePath(url) === undefined) {
        elsewhere.add(url);
        // Pages show only this site's images (its CSP): another site's stays a link.
        missing(item, url, "on another site: shown as a link to it");
        continue;
      }
      const image = await storedImage(item, url, BODY_IMAGE_MAX_BYTES);
      if (!image) continue;
      stored.push(image.key);
      bodyImages.push({ key: image.key, width: image.encoded.width, height: image.encoded.height });
      replacements.set(url, imageUrl(deps.storage, image.key, "lg"));
    }
    const markdown = withLineFeeds(linked).replace(
      MARKDOWN_IMAGE,
      (whole, alt: string, url: string, title?: string) => {
        const local = replacements.get(url);
        return local ? `![${alt}](${local}${title ?? ""})` : whole;
      },
    );
    return { markdown, bodyImages };
  }

  return { storedImage, localBody };
}

export type ImportedImages = Awaited<ReturnType<typeof importedImages>>;
