import { contentMessages } from "../../contract/content.js";
import { BODY_IMAGE_MAX_BYTES } from "../../contract/limits.js";
import type { CoreDeps } from "../deps.js";
import { discardImages, encodeImage, imageUrl, putImage } from "../media/images.js";
import { iso } from "../shared/clock.js";
import { invalid, tooLarge } from "../shared/errors.js";
import type { Actor } from "../users/policies.js";

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
