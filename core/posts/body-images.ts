import type { Kysely } from "kysely";
import { contentMessages } from "../../contract/content.js";
import {
  BODY_IMAGE_BYTES_PER_DAY,
  BODY_IMAGE_MAX_BYTES,
  BODY_IMAGES_PER_DAY,
} from "../../contract/limits.js";
import type { Database } from "../../db/schema.js";
import type { CoreDeps } from "../deps.js";
import { discardImages, encodeImage, imageUrl, putImage } from "../media/images.js";
import { DAY_MS, iso } from "../shared/clock.js";
import { invalid, tooLarge, tooManyAttempts } from "../shared/errors.js";
import type { Actor } from "../users/policies.js";
import type { ImageSize } from "./body.js";

/**
 * Stores an image for use in a post body: verified and re-encoded as a post image is, and kept as
 * an unclaimed upload until a post's body uses it. Returns what the writer puts in the Markdown.
 */
export async function uploadBodyImage(
  deps: CoreDeps,
  actor: Actor,
  image: Buffer | undefined,
  signal?: AbortSignal,
) {
  if (!image)
    throw invalid(contentMessages.imageRequired, { image: contentMessages.imageRequired });
  if (image.length > BODY_IMAGE_MAX_BYTES) throw tooLarge();
  await checkDailyQuota(deps, actor);
  const encoded = await encodeImage(image, signal);
  const imageKey = await putImage(deps.storage, encoded);
  try {
    await deps.db
      .insertInto("body_images")
      .values({
        image_key: imageKey,
        uploader_id: actor.id,
        post_id: null,
        width: encoded.width,
        height: encoded.height,
        bytes: encoded.variants.reduce((sum, variant) => sum + variant.body.length, 0),
        created_at: iso(deps.clock()),
        released_at: null,
      })
      .execute();
  } catch (error) {
    await discardImages(deps, [imageKey]);
    throw error;
  }
  return {
    url: imageUrl(deps.storage, imageKey, "lg"),
    width: encoded.width,
    height: encoded.height,
  };
}

/**
 * Refuses an upload once the account has uploaded its day's allowance of body images, in number or
 * in bytes stored, in the last 24 hours (admins are not counted). 429, not 413: nothing is wrong
 * with this image; the account may upload again once its oldest upload of the day is a day old,
 * which Retry-After says. Checked before the decode, so a refusal costs no image work; uploads
 * decoding at the same moment may pass together, a few images past the limit at most.
 */
async function checkDailyQuota(deps: CoreDeps, actor: Actor) {
  if (actor.isAdmin) return;
  const now = deps.clock().getTime();
  const used = await deps.db
    .selectFrom("body_images")
    .select((eb) => [
      eb.fn.countAll().as("images"),
      // Both null over no rows.
      eb.fn.sum<number | string | null>("bytes").as("bytes"),
      eb.fn.min<string | null>("created_at").as("oldest"),
    ])
    .where("uploader_id", "=", actor.id)
    .where("created_at", ">", iso(new Date(now - DAY_MS)))
    .executeTakeFirstOrThrow();
  const message =
    Number(used.images) >= BODY_IMAGES_PER_DAY
      ? contentMessages.bodyImagesPerDay
      : Number(used.bytes ?? 0) >= BODY_IMAGE_BYTES_PER_DAY
        ? contentMessages.bodyImageBytesPerDay
        : undefined;
  if (message === undefined || used.oldest === null) return;
  const retryAfter = Math.max(1, Math.ceil((Date.parse(used.oldest) + DAY_MS - now) / 1000));
  throw tooManyAttempts(message, retryAfter);
}

/** Keys a body could name: `images/<id>/` anywhere in it (the renderer decides what is an image). */
const KEY_IN_TEXT = /images\/([0-9a-f-]{36})\//g;
/** A body of the longest length holds a few hundred image URLs at most. */
const KEYS_MAX = 500;

/** The image keys a body's text names, at most KEYS_MAX of them. */
export function keysNamedIn(source: string) {
  const keys = new Set<string>();
  for (const match of source.matchAll(KEY_IN_TEXT)) {
    keys.add(`images/${match[1] ?? ""}`);
    if (keys.size >= KEYS_MAX) break;
  }
  return [...keys];
}

/** The uploaded body images a body's text names, with their sizes and who may claim them. */
export async function bodyImagesNamedIn(db: Kysely<Database>, source: string) {
  const keys = keysNamedIn(source);
  if (keys.length === 0) return [];
  return db
    .selectFrom("body_images")
    .leftJoin("users", "users.id", "body_images.uploader_id")
    .select([
      "body_images.image_key",
      "body_images.uploader_id",
      "body_images.post_id",
      "body_images.page_id",
      "body_images.width",
      "body_images.height",
      "users.is_admin as uploader_is_admin",
    ])
    .where("body_images.image_key", "in", keys)
    .execute();
}

export type NamedBodyImage = Awaited<ReturnType<typeof bodyImagesNamedIn>>[number];

/** The sizes the renderer writes onto the images it knows. */
export const imageSizesOf = (images: readonly NamedBodyImage[]) =>
  new Map<string, ImageSize>(
    images.map((image) => [image.image_key, { width: image.width, height: image.height }]),
  );

/**
 * A post claims the uploads its body shows that nobody else's post has: those its author uploaded,
 * or an admin did (a site's own pictures). Another member's upload is left as it is, so nobody can
 * take (and later delete) an image a post of someone else is about to use.
 */
const claimable = (image: NamedBodyImage, post: { id: string; user_id: string }) =>
  image.page_id === null &&
  (image.post_id === null || image.post_id === post.id) &&
  (image.uploader_id === post.user_id || image.uploader_is_admin === 1);

/**
 * Links a post to the uploads its body now shows, and lets go of the ones it no longer shows
 * (swept a day later unless a post claims them again). Runs in the transaction that writes the
 * post, so a claim never points at a post that is gone.
 */
export async function claimBodyImages(
  db: Kysely<Database>,
  post: { id: string; user_id: string },
  shown: ReadonlySet<string>,
  named: readonly NamedBodyImage[],
  now: string,
) {
  const claimed = named
    .filter((image) => shown.has(image.image_key) && claimable(image, post))
    .map((image) => image.image_key);
  if (claimed.length > 0) {
    await db
      .updateTable("body_images")
      .set({ post_id: post.id, released_at: null })
      .where("image_key", "in", claimed)
      .where("page_id", "is", null)
      .where((eb) => eb.or([eb("post_id", "is", null), eb("post_id", "=", post.id)]))
      .execute();
  }
  // An image a kept revision of the post still names stays with it, so restoring that revision
  // brings its pictures back (decision 022); it goes once no revision names it either.
  const revisions = await db
    .selectFrom("post_revisions")
    .select("description")
    .where("post_id", "=", post.id)
    .execute();
  const kept = [...new Set([...claimed, ...revisions.flatMap((r) => keysNamedIn(r.description))])];
  let released = db
    .updateTable("body_images")
    .set({ post_id: null, released_at: now })
    .where("post_id", "=", post.id);
  if (kept.length > 0) released = released.where("image_key", "not in", kept);
  await released.execute();
}

/** The keys of a post's body images (read before it goes: its rows go with it, by cascade). */
export async function bodyImageKeysOfPost(db: Kysely<Database>, postId: string) {
  const rows = await db
    .selectFrom("body_images")
    .select("image_key")
    .where("post_id", "=", postId)
    .execute();
  return rows.map((row) => row.image_key);
}

/**
 * The keys of the body images an account's deletion lets go of: those of its posts and its own
 * uploads no post claimed. (Its uploads that someone else's post shows stay with that post.)
 */
export async function bodyImageKeysOfUser(db: Kysely<Database>, userId: string) {
  const rows = await db
    .selectFrom("body_images")
    .select("image_key")
    .where((eb) =>
      eb.or([
        eb(
          "post_id",
          "in",
          eb.selectFrom("posts").select("posts.id").where("posts.user_id", "=", userId),
        ),
        eb.and([
          eb("uploader_id", "=", userId),
          eb("post_id", "is", null),
          // A static page's images stay with the page (decision 032).
          eb("page_id", "is", null),
        ]),
      ]),
    )
    .execute();
  return rows.map((row) => row.image_key);
}
