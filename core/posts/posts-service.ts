import { contentMessages, PostCreateSchema, PostUpdateSchema } from "../../contract/content.js";
import { IMAGE_CREATE_MAX_BYTES, IMAGE_REPLACE_MAX_BYTES } from "../../contract/limits.js";
import { parseWith, type FieldErrors } from "../../contract/validation.js";
import type { Kysely } from "kysely";
import type { BodyFormat, Database, PostsTable } from "../../db/schema.js";
import { recordAudit } from "../audit/audit-log.js";
import { findCategoryByTitle } from "../categories/categories-service.js";
import { presentComment } from "../comments/presenters.js";
import { selectComments } from "../comments/queries.js";
import type { CoreDeps } from "../deps.js";
import { checkNewAccountBrake } from "../spam/new-accounts.js";
import { discardImages, storeImage, swapImage } from "../media/images.js";
import { iso } from "../shared/clock.js";
import { changingContent } from "../shared/content-changes.js";
import { forbidden, invalid, notFound } from "../shared/errors.js";
import { isId, newId } from "../shared/ids.js";
import { validate } from "../shared/validate.js";
import type { Actor } from "../users/policies.js";
import { presentPublicUser } from "../users/presenters.js";
import { columnsOf, renderBody } from "./body.js";
import {
  bodyImageKeysOfPost,
  bodyImagesNamedIn,
  claimBodyImages,
  imageSizesOf,
} from "./body-images.js";
import { canDeletePost, canEditPost, linksFollowed } from "./policies.js";
import { presentPostDetail, presentPostSummary } from "./presenters.js";
import { pageOf, POST_COLUMNS, selectPostSummaries } from "./queries.js";

export const postMessages = {
  notFound: "Post not found",
  categoryUnknown: "This category does not exist",
  notOwner: "Only the author of this post may change it",
  deleteDenied: "Only the author of this post or an admin may delete it",
  deleted: "Post has been deleted successfully",
} as const;

/** Which posts a list shows: everything, one category, or one author. */
export interface PostFilter {
  category?: string | undefined;
  userId?: string | undefined;
}

/** The ids of a filter's posts, newest first, read from the list indexes alone. */
function postIdsOf(deps: CoreDeps, filter: PostFilter) {
  let ids = deps.db
    .selectFrom("posts")
    .select("id")
    .orderBy("created_at", "desc")
    .orderBy("id", "desc");
  if (filter.category !== undefined) ids = ids.where("category", "=", filter.category);
  if (filter.userId !== undefined) ids = ids.where("user_id", "=", filter.userId);
  return ids;
}

export async function listPosts(
  deps: CoreDeps,
  filter: PostFilter,
  pageNumber?: number,
  pageSize?: number,
) {
  let query = selectPostSummaries(deps.db);
  if (pageNumber === undefined) {
    if (filter.category !== undefined) query = query.where("posts.category", "=", filter.category);
    if (filter.userId !== undefined) query = query.where("posts.user_id", "=", filter.userId);
  } else {
    // The page's ids first, from the index alone; only those rows get their author and counts.
    // (With OFFSET on the full query, SQLite would compute the counts of every skipped row.)
    const { limit, offset } = pageOf(pageNumber, pageSize);
    query = query.where("posts.id", "in", postIdsOf(deps, filter).limit(limit).offset(offset));
  }
  const rows = await query.execute();
  return rows.map((row) => presentPostSummary(deps, row));
}

/**
 * How many posts `listPostsInBatches` reads at a time: a batch's JSON (~100 KB) stays under V8's
 * large-object size, so it dies young; batches of 500 went straight to the old generation and
 * raised the peak memory under a crowd of whole lists by ~50 MB.
 */
export const POST_BATCH = 100;

/**
 * Every post of a filter, newest first, a batch at a time: a list of any length for the memory of
 * one batch. Each batch continues after the last post of the one before (by time, then id), so a
 * post written meanwhile is neither repeated nor skipped over.
 */
export async function* listPostsInBatches(
  deps: CoreDeps,
  filter: PostFilter,
  batchSize = POST_BATCH,
): AsyncGenerator<ReturnType<typeof presentPostSummary>[]> {
  let after: { createdAt: string; id: string } | undefined;
  for (;;) {
    let ids = postIdsOf(deps, filter).limit(batchSize);
    if (after) {
      const { createdAt, id } = after;
      ids = ids.where((eb) =>
        eb.or([
          eb("created_at", "<", createdAt),
          eb.and([eb("created_at", "=", createdAt), eb("id", "<", id)]),
        ]),
      );
    }
    const rows = await selectPostSummaries(deps.db).where("posts.id", "in", ids).execute();
    const last = rows.at(-1);
    if (!last) return;
    yield rows.map((row) => presentPostSummary(deps, row));
    if (rows.length < batchSize) return;
    after = { createdAt: last.created_at, id: last.id };
  }
}

/** Every post's id and last change, newest first: what a sitemap lists. */
export function listPostStamps(deps: Pick<CoreDeps, "db">) {
  return deps.db
    .selectFrom("posts")
    .select(["id", "updated_at"])
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .execute();
}

export async function countPosts(deps: CoreDeps, filter: PostFilter = {}) {
  let query = deps.db.selectFrom("posts").select((eb) => eb.fn.countAll<number | string>().as("n"));
  if (filter.category !== undefined) query = query.where("category", "=", filter.category);
  if (filter.userId !== undefined) query = query.where("user_id", "=", filter.userId);
  const row = await query.executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A post's row without its rendered HTML (the one column only its page needs). */
export async function findPost(deps: Pick<CoreDeps, "db">, id: string) {
  if (!isId(id)) return undefined;
  return deps.db.selectFrom("posts").select(POST_COLUMNS).where("id", "=", id).executeTakeFirst();
}

async function requirePost(deps: CoreDeps, id: string) {
  const post = await findPost(deps, id);
  if (!post) throw notFound(postMessages.notFound);
  return post;
}

/**
 * A post with its likers and all its comments, oldest first (the API's shape); the post page asks
 * for none and reads a page of comment threads instead (core/comments/threads.ts).
 */
export async function getPost(deps: CoreDeps, id: string, withComments = true) {
  const row = isId(id)
    ? await selectPostSummaries(deps.db)
        .select("posts.html")
        .where("posts.id", "=", id)
        .executeTakeFirst()
    : undefined;
  if (!row) throw notFound(postMessages.notFound);
  const [likers, comments] = await Promise.all([
    deps.db
      .selectFrom("likes")
      .innerJoin("users", "users.id", "likes.user_id")
      .select(["users.id", "users.username", "users.photo_key"])
      .where("likes.post_id", "=", id)
      .orderBy("likes.created_at")
      .execute(),
    withComments
      ? selectComments(deps.db)
          .where("comments.post_id", "=", id)
          .orderBy("comments.created_at")
          .orderBy("comments.id")
          .execute()
      : [],
  ]);
  return presentPostDetail(
    deps,
    row,
    likers.map((user) => presentPublicUser(deps, user)),
    comments.map((comment) => presentComment(deps, comment)),
  );
}

/** The category's own spelling, or a 400 naming the field when it does not exist. */
async function canonicalCategory(deps: CoreDeps, title: string) {
  const category = await findCategoryByTitle(deps, title);
  if (!category) {
    throw invalid(postMessages.categoryUnknown, { category: postMessages.categoryUnknown });
  }
  return category.title;
}

/** Where this site's image storage serves its files from (the one place a body's images may be). */
const imageBaseOf = (deps: CoreDeps) => deps.storage.url("x").slice(0, -1);

/**
 * A body's stored rendering, made once when it is written, with the uploaded images it names: a
 * Markdown body with a script in it is refused here (400 naming `description`), before anything
 * is stored.
 */
async function bodyFor(deps: CoreDeps, author: Actor, description: string, format: BodyFormat) {
  const named = format === "markdown" ? await bodyImagesNamedIn(deps.db, description) : [];
  const rendered = renderBody(description, format, {
    followLinks: linksFollowed(author),
    imageBases: [imageBaseOf(deps)],
    imageSizes: imageSizesOf(named),
  });
  return {
    columns: columnsOf(rendered, format),
    /** Links the post to the uploads its body shows, in the transaction that writes it. */
    claimImages: (db: Kysely<Database>, post: { id: string; user_id: string }) =>
      claimBodyImages(db, post, new Set(rendered.imageKeys), named, iso(deps.clock())),
  };
}

export interface PostForm {
  fields: Record<string, string>;
  image: Buffer | undefined;
}

/**
 * Creates a post from the create-post form; every missing field is reported at once. `signal`
 * aborts when the client has left (its image is then not decoded).
 */
export async function createPost(
  deps: CoreDeps,
  actor: Actor,
  form: PostForm,
  signal?: AbortSignal,
) {
  const parsed = parseWith(PostCreateSchema, form.fields);
  const errors: FieldErrors = {
    ...(form.image ? {} : { image: contentMessages.imageRequired }),
    ...(parsed.ok ? {} : parsed.errors),
  };
  const [firstError] = Object.values(errors);
  if (firstError !== undefined || !parsed.ok || !form.image) {
    throw invalid(firstError ?? contentMessages.imageRequired, errors);
  }
  await checkNewAccountBrake(deps, actor, "posts");
  const body = await bodyFor(deps, actor, parsed.data.description, "markdown");
  const category = await canonicalCategory(deps, parsed.data.category);
  const imageKey = await storeImage(deps.storage, form.image, IMAGE_CREATE_MAX_BYTES, signal);
  const now = iso(deps.clock());
  const post: PostsTable = {
    id: newId(),
    user_id: actor.id,
    title: parsed.data.title,
    description: parsed.data.description,
    category,
    image_key: imageKey,
    ...body.columns,
    created_at: now,
    updated_at: now,
  };
  try {
    await changingContent(deps, () =>
      deps.db.transaction().execute(async (trx) => {
        await trx.insertInto("posts").values(post).execute();
        await body.claimImages(trx, post);
      }),
    );
  } catch (error) {
    await discardImages(deps, [imageKey]);
    throw error;
  }
  return getPost(deps, post.id);
}

export async function updatePost(deps: CoreDeps, actor: Actor, id: string, form: unknown) {
  const post = await requirePost(deps, id);
  if (!canEditPost(actor, post)) throw forbidden(postMessages.notOwner);
  const input = validate(PostUpdateSchema, form);
  // A post keeps its format: one written before Markdown stays plain text, as its author wrote it.
  const rendered = await bodyFor(deps, actor, input.description, post.body_format);
  // A post may keep a category that was deleted since; a change must name one that exists.
  const category =
    input.category === post.category
      ? post.category
      : await canonicalCategory(deps, input.category);
  const { html, excerpt, reading_minutes } = rendered.columns;
  await changingContent(deps, () =>
    deps.db.transaction().execute(async (trx) => {
      const updated = await trx
        .updateTable("posts")
        .set({
          title: input.title,
          description: input.description,
          html,
          excerpt,
          reading_minutes,
          category,
          updated_at: iso(deps.clock()),
        })
        .where("id", "=", post.id)
        .executeTakeFirst();
      // Deleted meanwhile: nothing to claim images for.
      if (updated.numUpdatedRows === 1n) await rendered.claimImages(trx, post);
    }),
  );
  return getPost(deps, post.id);
}

/** Replaces the image of a post; the old files go once the new ones are in place. */
export async function replacePostImage(
  deps: CoreDeps,
  actor: Actor,
  id: string,
  image: Buffer | undefined,
  signal?: AbortSignal,
) {
  const post = await requirePost(deps, id);
  if (!canEditPost(actor, post)) throw forbidden(postMessages.notOwner);
  if (!image) {
    throw invalid(contentMessages.imageRequired, { image: contentMessages.imageRequired });
  }
  const imageKey = await storeImage(deps.storage, image, IMAGE_REPLACE_MAX_BYTES, signal);
  const swapped = await changingContent(deps, () =>
    swapImage(deps, imageKey, {
      currentKey: async () => (await findPost(deps, post.id))?.image_key,
      setKeyIf: async (expected) => {
        const result = await deps.db
          .updateTable("posts")
          .set({ image_key: imageKey, updated_at: iso(deps.clock()) })
          .where("id", "=", post.id)
          .where("image_key", "=", expected ?? "")
          .executeTakeFirst();
        return result.numUpdatedRows === 1n;
      },
    }),
  );
  if (!swapped) throw notFound(postMessages.notFound);
  return getPost(deps, post.id);
}

/** Deletes a post with its comments, likes and body images (by cascade) and its image files. */
export async function deletePost(deps: CoreDeps, actor: Actor, id: string) {
  const post = await requirePost(deps, id);
  if (!canDeletePost(actor, post)) throw forbidden(postMessages.deleteDenied);
  const bodyImageKeys = await changingContent(deps, () =>
    deps.db.transaction().execute(async (trx) => {
      const keys = await bodyImageKeysOfPost(trx, post.id);
      await trx.deleteFrom("posts").where("id", "=", post.id).execute();
      if (actor.id !== post.user_id) {
        await recordAudit(trx, deps, actor, "post.delete", {
          kind: "post",
          id: post.id,
          summary: post.title,
        });
      }
      return keys;
    }),
  );
  await discardImages(deps, [post.image_key, ...bodyImageKeys]);
  return { postId: post.id, message: postMessages.deleted };
}

/**
 * Likes or unlikes. The (user, post) primary key makes a second like impossible: the insert is
 * skipped on conflict, and only then is the like removed, so concurrent likes all count once.
 */
export async function toggleLike(deps: CoreDeps, actor: Actor, id: string) {
  const post = await requirePost(deps, id);
  await changingContent(deps, async () => {
    const inserted = await deps.db
      .insertInto("likes")
      .values({ user_id: actor.id, post_id: post.id, created_at: iso(deps.clock()) })
      .onConflict((oc) => oc.columns(["user_id", "post_id"]).doNothing())
      .executeTakeFirst()
      .catch(async (error: unknown) => {
        if (!(await findPost(deps, post.id))) throw notFound(postMessages.notFound);
        throw error;
      });
    if ((inserted.numInsertedOrUpdatedRows ?? 0n) === 0n) {
      await deps.db
        .deleteFrom("likes")
        .where("user_id", "=", actor.id)
        .where("post_id", "=", post.id)
        .execute();
    }
  });
  return getPost(deps, post.id);
}
