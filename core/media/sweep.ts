import type { ExpressionBuilder } from "kysely";
import type { Database } from "../../db/schema.js";
import type { CoreDeps } from "../deps.js";
import { iso } from "../shared/clock.js";
import { deleteImages } from "./images.js";

/** Image keys checked against the database per query. */
const BATCH = 500;

/** `images/<id>` for a file under it (any variant, or a write that never finished). */
const imageKeyOf = (fileKey: string) => /^(images\/[^/]+)\//.exec(fileKey)?.[1];

/**
 * Removes stored image files that no post, user, body image or site logo refers to: what a crash (or a
 * failed request) left between storing an upload and writing its row. Only files older than `olderThan` are
 * touched, since an upload on this or another instance may be between those two steps right now.
 * Returns how many files it removed.
 */
export async function sweepOrphanUploads(
  deps: Pick<CoreDeps, "db" | "storage">,
  options: { olderThan: Date },
): Promise<number> {
  const cutoff = options.olderThan.getTime();
  let removed = 0;
  let batch = new Map<string, { files: string[]; newest: number }>();

  const settle = async (images: Map<string, { files: string[]; newest: number }>) => {
    const keys = [...images.keys()];
    if (keys.length === 0) return;
    const [posts, users, bodyImages, logos] = await Promise.all([
      deps.db
        .selectFrom("posts")
        .select("image_key as key")
        .where("image_key", "in", keys)
        .execute(),
      deps.db
        .selectFrom("users")
        .select("photo_key as key")
        .where("photo_key", "in", keys)
        .execute(),
      deps.db
        .selectFrom("body_images")
        .select("image_key as key")
        .where("image_key", "in", keys)
        .execute(),
      deps.db
        .selectFrom("site_settings")
        .select("logo_key as key")
        .where("logo_key", "in", keys)
        .execute(),
    ]);
    const used = new Set([...posts, ...users, ...bodyImages, ...logos].map((row) => row.key));
    const orphans = [...images]
      .filter(([key, image]) => !used.has(key) && image.newest < cutoff)
      .flatMap(([, image]) => image.files);
    if (orphans.length > 0) await deps.storage.delete(orphans);
    removed += orphans.length;
  };

  for await (const object of deps.storage.list("images/")) {
    const imageKey = imageKeyOf(object.key);
    if (!imageKey) continue;
    const image = batch.get(imageKey) ?? { files: [], newest: 0 };
    image.files.push(object.key);
    image.newest = Math.max(image.newest, object.modifiedAt.getTime());
    batch.set(imageKey, image);
    // Listings come folder by folder, so an image's files are together; a full batch is settled
    // once the listing has moved past its last image.
    if (batch.size > BATCH) {
      const last = [...batch.keys()].at(-1) ?? "";
      const rest = batch.get(last);
      batch.delete(last);
      await settle(batch);
      batch = new Map(rest ? [[last, rest]] : []);
    }
  }
  await settle(batch);
  return removed;
}

/** How long an uploaded body image waits for a post to use it: a writer may take a while. */
export const UNUSED_BODY_IMAGE_MS = 24 * 60 * 60 * 1000;

/**
 * Removes the body images no post uses (never claimed, or let go by an edit of their post) since
 * before `olderThan`: their rows, then their files. Each row is taken by a conditional delete, so
 * of several instances sweeping at once one removes it, and a post that claims it meanwhile keeps
 * it. A crash between the two steps leaves files without a row, which `sweepOrphanUploads` removes.
 * Returns how many images it removed.
 */
export async function sweepUnusedBodyImages(
  deps: Pick<CoreDeps, "db" | "storage">,
  options: { olderThan: Date },
): Promise<number> {
  const cutoff = iso(options.olderThan);
  let removed = 0;
  for (;;) {
    const unused = (eb: ExpressionBuilder<Database, "body_images">) =>
      eb.and([
        eb("post_id", "is", null),
        eb("page_id", "is", null),
        eb("created_at", "<", cutoff),
        eb.or([eb("released_at", "is", null), eb("released_at", "<", cutoff)]),
      ]);
    const candidates = await deps.db
      .selectFrom("body_images")
      .select("image_key")
      .where(unused)
      .limit(BATCH)
      .execute();
    if (candidates.length === 0) return removed;
    const taken = await deps.db
      .deleteFrom("body_images")
      .where(
        "image_key",
        "in",
        candidates.map((row) => row.image_key),
      )
      .where(unused)
      .returning("image_key")
      .execute();
    await deleteImages(
      deps.storage,
      taken.map((row) => row.image_key),
    );
    removed += taken.length;
    if (candidates.length < BATCH) return removed;
  }
}
