import { newsletterDefaultOf } from "../site-settings/site-settings-service.js";
import { sql } from "kysely";
import {
  contentMessages,
  namesWritingFields,
  normalizeTag,
  OwnPostsQuerySchema,
  PostCreateSchema,
  PostPartialUpdateSchema,
  PostPublishingSchema,
  PostUpdateSchema,
  publishingMessages,
  type PostPublishingInput,
} from "../../contract/content.js";
import {
  IMAGE_CREATE_MAX_BYTES,
  IMAGE_REPLACE_MAX_BYTES,
  TAGS_PAGE_SIZE,
} from "../../contract/limits.js";
import { parseWith, type FieldErrors } from "../../contract/validation.js";
import type { Insertable, Kysely, Selectable } from "kysely";
import { compiledOnce } from "../../db/compiled-once.js";
import type { BodyFormat, Database, PostsTable } from "../../db/schema.js";
import { recordAudit } from "../audit/audit-log.js";
import { findCategoryByTitle } from "../categories/categories-service.js";
import { followeesOf } from "../follows/follows-service.js";
import { notify, withdrawNotification } from "../notifications/notifications-service.js";
import { presentComment } from "../comments/presenters.js";
import { selectComments } from "../comments/queries.js";
import type { CoreDeps } from "../deps.js";
import { checkNewAccountBrake } from "../spam/new-accounts.js";
import { seriesColumnsFor } from "../series/series-service.js";
import { discardImages, storeImage, swapImage } from "../media/images.js";
import { iso } from "../shared/clock.js";
import { changingContent } from "../shared/content-changes.js";
import { recordEvent } from "../events/events.js";
import { conflict, forbidden, invalid, notFound } from "../shared/errors.js";
import { isId, newId } from "../shared/ids.js";
import { validate } from "../shared/validate.js";
import type { Actor } from "../users/policies.js";
import { presentPublicUser } from "../users/presenters.js";
import { columnsOf, renderPlainBody } from "./body.js";
import {
  bodyImageKeysOfPost,
  bodyImagesNamedIn,
  claimBodyImages,
  imageSizesOf,
} from "./body-images.js";
import { canDeletePost, canEditPost, canSeePost, linksFollowed } from "./policies.js";
import { presentPostDetail, presentPostSummary } from "./presenters.js";
import {
  orderedAs,
  pageOf,
  POST_COLUMNS,
  selectPostSummaries,
  type PostListStatus,
} from "./queries.js";

export const postMessages = {
  notFound: "Post not found",
  categoryUnknown: "This category does not exist",
  notOwner: "Only the author of this post may change it",
  deleteDenied: "Only the author of this post or an admin may delete it",
  deleted: "Post has been deleted successfully",
} as const;

/**
 * Which posts a list shows: everything, one category, or one author; published ones unless it
 * names another state (an author's drafts) or `any` (the admin table).
 */
export interface PostFilter {
  category?: string | undefined;
  userId?: string | undefined;
  /** The authors this user follows (the signed-in reader's feed). */
  followedBy?: string | undefined;
  /** One tag's posts (any spelling: it is compared normalized). */
  tag?: string | undefined;
  /** One series' posts (its feed: newest first, as every feed). */
  seriesId?: string | undefined;
  status?: PostListStatus | undefined;
}

/** The posts tagged `tag`, for a query on `posts`: through post_tags' index. */
const taggedIds = (db: Kysely<Database>, tag: string) =>
  db
    .selectFrom("post_tags")
    .select("post_tags.post_id")
    .where("post_tags.tag", "=", normalizeTag(tag));

/**
 * What a filter binds, in the order `postIdsOf` and `countPosts` bind it, and the shape it gives
 * their SQL (its state, which also orders the list, and which conditions it has): the reads of
 * the site's lists are compiled once per shape.
 */
function filterBinding(filter: PostFilter) {
  const status = filter.status ?? "published";
  const conditions = [
    ["status", status === "any" ? undefined : status],
    ["category", filter.category],
    ["userId", filter.userId],
    ["followedBy", filter.followedBy],
    ["tag", filter.tag === undefined ? undefined : normalizeTag(filter.tag)],
    ["seriesId", filter.seriesId],
  ] as const;
  const bound = conditions.flatMap(([name, value]) =>
    value === undefined ? [] : [{ name, value }],
  );
  return {
    shape: [status, ...bound.map(({ name }) => name)].join(" "),
    parameters: bound.map(({ value }) => value),
  };
}

/**
 * The ids of a filter's posts in its list's order, read from the list indexes alone: a deep page's
 * OFFSET walks index entries, never rows (issue 48). On PostgreSQL that is an index-only scan,
 * which needs the visibility map VACUUM keeps (autovacuum does, by default): in a database filled
 * in bulk and never vacuumed, the planner reads and sorts the whole table instead, ~25 ms at
 * 10,000 posts against ~1.5 ms (tests/api/deep-pages.test.ts checks the plan on both databases).
 */
function postIdsOf(deps: CoreDeps, filter: PostFilter) {
  const status = filter.status ?? "published";
  let ids = orderedAs(deps.db.selectFrom("posts").select("posts.id"), status);
  if (status !== "any") ids = ids.where("posts.status", "=", status);
  if (filter.category !== undefined) ids = ids.where("posts.category", "=", filter.category);
  if (filter.userId !== undefined) ids = ids.where("posts.user_id", "=", filter.userId);
  if (filter.followedBy !== undefined) {
    ids = ids.where("posts.user_id", "in", followeesOf(deps.db, filter.followedBy));
  }
  if (filter.tag !== undefined) ids = ids.where("posts.id", "in", taggedIds(deps.db, filter.tag));
  if (filter.seriesId !== undefined) ids = ids.where("posts.series_id", "=", filter.seriesId);
  return ids;
}

/** A page of a list: home, /posts, a category, a profile, the feed. */
const postsPage = compiledOnce<Database>();

export async function listPosts(
  deps: CoreDeps,
  filter: PostFilter,
  pageNumber?: number,
  pageSize?: number,
) {
  const status = filter.status ?? "published";
  const ordered = () => orderedAs(selectPostSummaries(deps.db), status);
  if (pageNumber === undefined) {
    let query = ordered();
    if (status !== "any") query = query.where("posts.status", "=", status);
    if (filter.category !== undefined) query = query.where("posts.category", "=", filter.category);
    if (filter.userId !== undefined) query = query.where("posts.user_id", "=", filter.userId);
    if (filter.followedBy !== undefined) {
      query = query.where("posts.user_id", "in", followeesOf(deps.db, filter.followedBy));
    }
    if (filter.tag !== undefined) {
      query = query.where("posts.id", "in", taggedIds(deps.db, filter.tag));
    }
    if (filter.seriesId !== undefined) {
      query = query.where("posts.series_id", "=", filter.seriesId);
    }
    const rows = await query.execute();
    return rows.map((row) => presentPostSummary(deps, row));
  }
  // The page's ids first, from the index alone; only those rows get their author and counts.
  // (With OFFSET on the full query, SQLite would compute the counts of every skipped row.)
  const { limit, offset } = pageOf(pageNumber, pageSize);
  const { shape, parameters } = filterBinding(filter);
  const rows = await postsPage(deps.db, { shape, parameters: [...parameters, limit, offset] }, () =>
    ordered().where("posts.id", "in", postIdsOf(deps, filter).limit(limit).offset(offset)),
  );
  return rows.map((row) => presentPostSummary(deps, row));
}

/**
 * How many posts `listPostsInBatches` reads at a time: a batch's JSON (~100 KB) stays under V8's
 * large-object size, so it dies young; batches of 500 went straight to the old generation and
 * raised the peak memory under a crowd of whole lists by ~50 MB.
 */
export const POST_BATCH = 100;

/**
 * Every published post of a filter, newest first, a batch at a time: a list of any length for the
 * memory of one batch. Each batch continues after the last post of the one before (by publication
 * time, then id), so a post published meanwhile is neither repeated nor skipped over.
 */
export async function* listPostsInBatches(
  deps: CoreDeps,
  filter: Omit<PostFilter, "status">,
  batchSize = POST_BATCH,
): AsyncGenerator<ReturnType<typeof presentPostSummary>[]> {
  let after: { publishedAt: string; id: string } | undefined;
  for (;;) {
    let ids = postIdsOf(deps, { ...filter, status: "published" }).limit(batchSize);
    if (after) {
      const { publishedAt, id } = after;
      ids = ids.where((eb) =>
        eb.or([
          eb("posts.published_at", "<", publishedAt),
          eb.and([eb("posts.published_at", "=", publishedAt), eb("posts.id", "<", id)]),
        ]),
      );
    }
    const rows = await orderedAs(selectPostSummaries(deps.db), "published")
      .where("posts.id", "in", ids)
      .execute();
    const last = rows.at(-1);
    if (!last?.published_at) return;
    yield rows.map((row) => presentPostSummary(deps, row));
    if (rows.length < batchSize) return;
    after = { publishedAt: last.published_at, id: last.id };
  }
}

/** Every published post's id, last change and category, newest first: what a sitemap lists. */
export function listPostStamps(deps: Pick<CoreDeps, "db">) {
  return orderedAs(
    deps.db
      .selectFrom("posts")
      .select(["posts.id", "posts.updated_at", "posts.category"])
      .where("posts.status", "=", "published"),
    "published",
  ).execute();
}

const postCount = compiledOnce<Database>();

/** How many posts a filter's list has (published ones unless it says otherwise). */
export async function countPosts(deps: CoreDeps, filter: PostFilter = {}) {
  const [row] = await postCount(deps.db, filterBinding(filter), () => {
    let query = deps.db
      .selectFrom("posts")
      .select((eb) => eb.fn.countAll<number | string>().as("n"));
    const status = filter.status ?? "published";
    if (status !== "any") query = query.where("status", "=", status);
    if (filter.category !== undefined) query = query.where("category", "=", filter.category);
    if (filter.userId !== undefined) query = query.where("user_id", "=", filter.userId);
    if (filter.followedBy !== undefined) {
      query = query.where("user_id", "in", followeesOf(deps.db, filter.followedBy));
    }
    if (filter.tag !== undefined) query = query.where("id", "in", taggedIds(deps.db, filter.tag));
    if (filter.seriesId !== undefined) query = query.where("series_id", "=", filter.seriesId);
    return query;
  });
  return Number(row?.n ?? 0);
}

/** A post's row without its rendered HTML (the one column only its page needs), whoever asks. */
export async function findPost(deps: Pick<CoreDeps, "db">, id: string) {
  if (!isId(id)) return undefined;
  return deps.db.selectFrom("posts").select(POST_COLUMNS).where("id", "=", id).executeTakeFirst();
}

/** A post `viewer` may see: a draft or a scheduled post is not there for anyone else. */
export async function findVisiblePost(
  deps: Pick<CoreDeps, "db">,
  viewer: Actor | undefined,
  id: string,
) {
  const post = await findPost(deps, id);
  return post && canSeePost(viewer, post) ? post : undefined;
}

async function requirePost(deps: CoreDeps, viewer: Actor, id: string) {
  const post = await findVisiblePost(deps, viewer, id);
  if (!post) throw notFound(postMessages.notFound);
  return post;
}

/** Read by every post page (its row and likers) and GET /api/posts/:id. */
const postWithHtml = compiledOnce<Database>();
const likersOfPost = compiledOnce<Database>();
const commentsOfPost = compiledOnce<Database>();

/**
 * A post with its likers and all its comments, oldest first (the API's shape); the post page asks
 * for none and reads a page of comment threads instead (core/comments/threads.ts).
 */
export async function getPost(
  deps: CoreDeps,
  viewer: Actor | undefined,
  id: string,
  /** What to leave out (as empty lists): a page reads a page of comments, a shell no likers. */
  omit: readonly ("comments" | "likers")[] = [],
) {
  const [row] = isId(id)
    ? await postWithHtml(deps.db, { parameters: [id] }, () =>
        selectPostSummaries(deps.db).select("posts.html").where("posts.id", "=", id),
      )
    : [];
  if (!row || !canSeePost(viewer, row)) throw notFound(postMessages.notFound);
  const [likers, comments] = await Promise.all([
    omit.includes("likers") ? [] : likersOf(deps, id),
    omit.includes("comments") ? [] : commentsOfPostForApi(deps, id),
  ]);
  return presentPostDetail(deps, row, likers, comments);
}

/** The rendered bodies of the published posts `ids`, by id (a feed's full text). */
export async function publishedBodiesOf(deps: CoreDeps, ids: readonly string[]) {
  if (ids.length === 0) return new Map<string, string>();
  const rows = await deps.db
    .selectFrom("posts")
    .select(["id", "html"])
    .where("id", "in", ids)
    .where("status", "=", "published")
    .execute();
  return new Map(rows.map((row) => [row.id, row.html]));
}

/** Who liked a post, first likes first. */
export async function likersOf(deps: CoreDeps, id: string) {
  const rows = await likersOfPost(deps.db, { parameters: [id] }, () =>
    deps.db
      .selectFrom("likes")
      .innerJoin("users", "users.id", "likes.user_id")
      .select(["users.id", "users.username", "users.photo_key"])
      .where("likes.post_id", "=", id)
      .orderBy("likes.created_at"),
  );
  return rows.map((user) => presentPublicUser(deps, user));
}

/** Every comment of a post, oldest first, as `GET /api/posts/:id` lists them. */
export async function commentsOfPostForApi(deps: CoreDeps, id: string) {
  const rows = await commentsOfPost(deps.db, { parameters: [id] }, () =>
    selectComments(deps.db)
      .where("comments.post_id", "=", id)
      .orderBy("comments.created_at")
      .orderBy("comments.id"),
  );
  return rows.map((comment) => presentComment(deps, comment));
}

/**
 * Records what a write did to a post, in its transaction (decision 027): it went out
 * (`post.published`), a published post changed (`post.updated`), or one left the site, deleted or
 * taken back to drafts (`post.deleted`). A draft's changes are nobody else's news.
 */
async function recordPostChange(
  trx: Kysely<Database>,
  deps: CoreDeps,
  wasPublished: boolean,
  isPublished: boolean,
  postId: string,
) {
  if (isPublished) {
    await recordEvent(trx, deps, {
      type: wasPublished ? "post.updated" : "post.published",
      postId,
    });
  } else if (wasPublished) {
    await recordEvent(trx, deps, { type: "post.deleted", postId });
  }
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
 * Markdown body is rendered on the render thread, and one with a script in it (or too costly to
 * render) is refused here (400 naming `description`), before anything is stored.
 */
export async function bodyFor(
  deps: CoreDeps,
  author: Actor,
  description: string,
  format: BodyFormat,
) {
  const named = format === "markdown" ? await bodyImagesNamedIn(deps.db, description) : [];
  const rendered =
    format === "plain"
      ? renderPlainBody(description)
      : await deps.renderMarkdown(description, {
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
  const publishing = parseWith(PostPublishingSchema, form.fields);
  // A draft may wait for its cover; a post going out (now or at a time) needs one.
  const coverOptional = publishing.ok && publishing.data.status === "draft";
  const errors: FieldErrors = {
    ...(form.image || coverOptional ? {} : { image: contentMessages.imageRequired }),
    ...(parsed.ok ? {} : parsed.errors),
    ...(publishing.ok ? {} : publishing.errors),
  };
  const [firstError] = Object.values(errors);
  if (firstError !== undefined || !parsed.ok || !publishing.ok) {
    throw invalid(firstError ?? contentMessages.imageRequired, errors);
  }
  const state = publishingColumns(deps, publishing.data);
  const status = state.status ?? "published";
  // A draft puts nothing out: the brake is for what readers get (issue 50).
  if (status !== "draft") await checkNewAccountBrake(deps, actor, "posts");
  const body = await bodyFor(deps, actor, parsed.data.description, "markdown");
  const category = await canonicalCategory(deps, parsed.data.category);
  const seriesColumns =
    parsed.data.series === undefined
      ? {}
      : await seriesColumnsFor(deps, actor.id, parsed.data.series);
  const imageKey = form.image
    ? await storeImage(deps.storage, form.image, IMAGE_CREATE_MAX_BYTES, signal)
    : null;
  const now = iso(deps.clock());
  const post: Insertable<PostsTable> = {
    id: newId(),
    user_id: actor.id,
    title: parsed.data.title,
    description: parsed.data.description,
    category,
    image_key: imageKey,
    image_alt: parsed.data.imageAlt || null,
    tags: (parsed.data.tags ?? []).join(" "),
    meta_description: parsed.data.metaDescription || null,
    canonical_url: parsed.data.canonicalUrl || null,
    newsletter: parsed.data.newsletter ?? (await newsletterDefaultOf(deps)),
    ...body.columns,
    status,
    publish_at: state.publish_at ?? null,
    published_at: status === "published" ? now : null,
    created_at: now,
    updated_at: now,
  };
  try {
    await changingContent(deps, () =>
      deps.db.transaction().execute(async (trx) => {
        await trx.insertInto("posts").values(post).execute();
        // Its place is counted in the transaction (the end of the series as it is then).
        if (Object.keys(seriesColumns).length > 0) {
          await trx.updateTable("posts").set(seriesColumns).where("id", "=", post.id).execute();
        }
        await writeTags(trx, post.id, parsed.data.tags ?? []);
        await body.claimImages(trx, post);
        await recordPostChange(trx, deps, false, status === "published", post.id);
      }),
    );
  } catch (error) {
    await discardImages(deps, [imageKey]);
    throw error;
  }
  if (publishing.data.publishAt) deps.postScheduled?.(publishing.data.publishAt);
  return getPost(deps, actor, post.id);
}

/**
 * The state columns a publishing request sets; none when it names no status (an update keeps the
 * post's state). Publishing keeps the time of a first publication; a schedule must lie ahead.
 */
function publishingColumns(deps: CoreDeps, input: PostPublishingInput) {
  switch (input.status) {
    case undefined:
      return {};
    case "published":
      return {
        status: input.status,
        publish_at: null,
        published_at: sql<string>`coalesce(published_at, ${iso(deps.clock())})`,
      };
    case "draft":
      return { status: input.status, publish_at: null };
    case "scheduled": {
      const { publishAt } = input;
      if (publishAt.getTime() <= deps.clock().getTime()) {
        const message = publishingMessages.publishAtPast;
        throw invalid(message, { publishAt: message });
      }
      return { status: input.status, publish_at: iso(publishAt) };
    }
  }
}

/** A post goes out (now or at a time) only with a cover: a draft saved without one must get it. */
function requireCoverToPublish(post: { image_key: string | null }, input: PostPublishingInput) {
  if (post.image_key !== null || input.status === undefined || input.status === "draft") return;
  throw invalid(contentMessages.imageRequired, { image: contentMessages.imageRequired });
}

/** How often a draft saving itself keeps a revision at most (decision 022). */
export const AUTOSAVE_REVISION_MS = 10 * 60_000;

export interface UpdateOptions {
  /**
   * A draft saving itself as its writer types: a revision only when the last is older than
   * `AUTOSAVE_REVISION_MS`, and only if the post was last saved at `expectedUpdatedAt` (else 409:
   * another tab or device saved it meanwhile).
   */
  autosave?: { expectedUpdatedAt: string };
}

export const autosaveMessages = {
  changedElsewhere:
    "This draft was saved elsewhere meanwhile (another tab or device): reload to see it. Your text stays in this browser.",
  notDraft: "Only a draft saves itself: save this post with its buttons",
} as const;

export async function updatePost(
  deps: CoreDeps,
  actor: Actor,
  id: string,
  body: unknown,
  options: UpdateOptions = {},
) {
  const post = await requirePost(deps, actor, id);
  if (!canEditPost(actor, post)) throw forbidden(postMessages.notOwner);
  // SPEC's edit sends title, category and description; one that names a status or a field of
  // DESIGN.md 10 ("Writing") may leave any of them out, and what it leaves out is kept.
  const partial = typeof body === "object" && body !== null && namesWritingFields(body);
  const input = validate(partial ? PostPartialUpdateSchema : PostUpdateSchema, body);
  const publishing = validate(PostPublishingSchema, body);
  requireCoverToPublish(post, publishing);
  const { autosave } = options;
  if (autosave) {
    if (post.status !== "draft" || publishing.status !== undefined) {
      throw invalid(autosaveMessages.notDraft);
    }
    if (post.updated_at !== autosave.expectedUpdatedAt) {
      throw conflict(autosaveMessages.changedElsewhere);
    }
  }
  const state = publishingColumns(deps, publishing);
  // A post put out now or at a time (a draft, or a scheduled one published now) counts as a new
  // post does for a new account.
  if (
    state.status !== undefined &&
    state.status !== "draft" &&
    state.status !== post.status &&
    post.status !== "published"
  ) {
    await checkNewAccountBrake(deps, actor, "posts", post.id);
  }
  // A post keeps its format: one written before Markdown stays plain text, as its author wrote it.
  const rendered =
    input.description === undefined
      ? undefined
      : await bodyFor(deps, actor, input.description, post.body_format);
  // A post may keep a category that was deleted since; a change must name one that exists.
  const category =
    input.category === undefined || input.category === post.category
      ? post.category
      : await canonicalCategory(deps, input.category);
  const bodyColumns = rendered && {
    description: input.description,
    html: rendered.columns.html,
    excerpt: rendered.columns.excerpt,
    body_text: rendered.columns.body_text,
    reading_minutes: rendered.columns.reading_minutes,
  };
  const { tags, metaDescription, canonicalUrl, imageAlt, newsletter } = input;
  const seriesColumns =
    // A draft saving itself leaves its series as it is (one deleted or filled elsewhere meanwhile
    // would refuse every save of the text); the editor's buttons save it.
    input.series === undefined || autosave
      ? {}
      : await seriesColumnsFor(deps, post.user_id, input.series, post);
  // The text a reader reads changes: what it was is kept as a revision (decision 022).
  const textChanges =
    (input.title !== undefined && input.title !== post.title) ||
    (input.description !== undefined && input.description !== post.description) ||
    category !== post.category ||
    (tags !== undefined && tags.join(" ") !== post.tags);
  const now = iso(deps.clock());
  // A draft that stays one shows on its author's pages alone, none of them shared: only its own
  // page's version moves on, and every other kept page stays (decision 021).
  const staysDraft = post.status === "draft" && (state.status ?? "draft") === "draft";
  await changingContent(
    deps,
    () =>
      deps.db.transaction().execute(async (trx) => {
        const updated = await trx
          .updateTable("posts")
          .set({
            ...(input.title === undefined ? {} : { title: input.title }),
            ...bodyColumns,
            category,
            ...(imageAlt === undefined ? {} : { image_alt: imageAlt || null }),
            ...(tags === undefined ? {} : { tags: tags.join(" ") }),
            ...(metaDescription === undefined ? {} : { meta_description: metaDescription || null }),
            ...(canonicalUrl === undefined ? {} : { canonical_url: canonicalUrl || null }),
            ...(newsletter === undefined ? {} : { newsletter }),
            ...seriesColumns,
            ...state,
            updated_at: now,
          })
          .where("id", "=", post.id)
          // A save by itself writes only over the draft it read: not over another tab's save,
          // nor a post published meanwhile (checked in the write, so no race slips between).
          .$if(autosave !== undefined, (query) =>
            query.where("updated_at", "=", post.updated_at).where("status", "=", "draft"),
          )
          .executeTakeFirst();
        if (updated.numUpdatedRows !== 1n) {
          if (autosave) throw conflict(autosaveMessages.changedElsewhere);
          // Deleted meanwhile: nothing to claim images for, no tags to write, nothing to keep.
          return;
        }
        if (tags !== undefined) await writeTags(trx, post.id, tags);
        if (textChanges && !(autosave && (await revisedLately(trx, post.id, now)))) {
          await keepRevision(trx, post, actor.id, now);
        }
        await rendered?.claimImages(trx, post);
        if (!autosave) {
          const isPublished = (state.status ?? post.status) === "published";
          await recordPostChange(trx, deps, post.status === "published", isPublished, post.id);
        }
      }),
    staysDraft ? { postId: post.id } : undefined,
  );
  if (publishing.publishAt) deps.postScheduled?.(publishing.publishAt);
  return getPost(deps, actor, post.id);
}

/** Whether a post's last revision is younger than `AUTOSAVE_REVISION_MS` at `now`. */
async function revisedLately(db: Kysely<Database>, postId: string, now: string) {
  const since = new Date(Date.parse(now) - AUTOSAVE_REVISION_MS).toISOString();
  const recent = await db
    .selectFrom("post_revisions")
    .select("id")
    .where("post_id", "=", postId)
    .where("created_at", ">", since)
    .limit(1)
    .executeTakeFirst();
  return recent !== undefined;
}

/** How many revisions a post keeps at least (DESIGN.md 10): the oldest beyond them go. */
export const REVISIONS_KEPT = 50;

/**
 * Keeps a post's text as it was before an edit by `editorId` (in the edit's transaction), and
 * lets the oldest go beyond the last `REVISIONS_KEPT`.
 */
async function keepRevision(
  db: Kysely<Database>,
  post: Pick<Selectable<PostsTable>, "id" | "title" | "description" | "category" | "tags">,
  editorId: string,
  now: string,
) {
  await db
    .insertInto("post_revisions")
    .values({
      id: newId(),
      post_id: post.id,
      editor_id: editorId,
      title: post.title,
      description: post.description,
      category: post.category,
      tags: post.tags,
      created_at: now,
    })
    .execute();
  const kept = db
    .selectFrom("post_revisions")
    .select("id")
    .where("post_id", "=", post.id)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(REVISIONS_KEPT);
  await db
    .deleteFrom("post_revisions")
    .where("post_id", "=", post.id)
    .where("id", "not in", kept)
    .execute();
}

/** A post's tags one row each, as its row lists them (in the transaction that writes the row). */
async function writeTags(db: Kysely<Database>, postId: string, tags: readonly string[]) {
  await db.deleteFrom("post_tags").where("post_id", "=", postId).execute();
  if (tags.length === 0) return;
  await db
    .insertInto("post_tags")
    .values(tags.map((tag) => ({ post_id: postId, tag })))
    .execute();
}

const tagsPage = compiledOnce<Database>();

/** `GET /api/tags`: the tags published posts carry, most used first, a page of 20 at a time. */
export async function listTags(deps: CoreDeps, pageNumber = 1) {
  const { limit, offset } = pageOf(pageNumber, TAGS_PAGE_SIZE);
  const rows = await tagsPage(deps.db, { parameters: ["published", limit, offset] }, () =>
    deps.db
      .selectFrom("post_tags")
      .innerJoin("posts", "posts.id", "post_tags.post_id")
      .where("posts.status", "=", "published")
      .select((eb) => ["post_tags.tag", eb.fn.countAll<number | string>().as("n")])
      .groupBy("post_tags.tag")
      .orderBy(sql`count(*)`, "desc")
      .orderBy("post_tags.tag")
      .limit(limit)
      .offset(offset),
  );
  return rows.map((row) => ({ name: row.tag, postsCount: Number(row.n) }));
}

/** Moves a post to another state alone (the site's Unpublish), as PUT /api/posts does with it. */
export async function changePostStatus(deps: CoreDeps, actor: Actor, id: string, body: unknown) {
  const post = await requirePost(deps, actor, id);
  if (!canEditPost(actor, post)) throw forbidden(postMessages.notOwner);
  const publishing = validate(PostPublishingSchema, body);
  requireCoverToPublish(post, publishing);
  const state = publishingColumns(deps, publishing);
  const isPublished = (state.status ?? post.status) === "published";
  await changingContent(deps, () =>
    deps.db.transaction().execute(async (trx) => {
      const updated = await trx
        .updateTable("posts")
        .set({ ...state, updated_at: iso(deps.clock()) })
        .where("id", "=", post.id)
        .executeTakeFirst();
      if (updated.numUpdatedRows !== 1n) return;
      await recordPostChange(trx, deps, post.status === "published", isPublished, post.id);
    }),
  );
  if (publishing.publishAt) deps.postScheduled?.(publishing.publishAt);
  return getPost(deps, actor, post.id);
}

/** The signed-in author's own drafts or scheduled posts, a page at a time. */
export async function listOwnPosts(deps: CoreDeps, actor: Actor, query: unknown) {
  const { status, pageNumber } = validate(OwnPostsQuerySchema, query);
  return listPosts(deps, { userId: actor.id, status }, pageNumber ?? 1);
}

/** `GET /api/posts/feed`: the published posts of the authors the reader follows, newest first. */
export async function listFeed(deps: CoreDeps, actor: Actor, pageNumber = 1) {
  return listPosts(deps, { followedBy: actor.id }, pageNumber);
}

/** Replaces the image of a post; the old files go once the new ones are in place. */
export async function replacePostImage(
  deps: CoreDeps,
  actor: Actor,
  id: string,
  image: Buffer | undefined,
  signal?: AbortSignal,
) {
  const post = await requirePost(deps, actor, id);
  if (!canEditPost(actor, post)) throw forbidden(postMessages.notOwner);
  if (!image) {
    throw invalid(contentMessages.imageRequired, { image: contentMessages.imageRequired });
  }
  const imageKey = await storeImage(deps.storage, image, IMAGE_REPLACE_MAX_BYTES, signal);
  const swapped = await changingContent(deps, () =>
    swapImage(deps, imageKey, {
      currentKey: async () => (await findPost(deps, post.id))?.image_key,
      setKeyIf: (expected) =>
        deps.db.transaction().execute(async (trx) => {
          const result = await trx
            .updateTable("posts")
            .set({ image_key: imageKey, updated_at: iso(deps.clock()) })
            .where("id", "=", post.id)
            .where((eb) =>
              // A draft saved without a cover gets its first one here.
              expected === null ? eb("image_key", "is", null) : eb("image_key", "=", expected),
            )
            .returning("status")
            .executeTakeFirst();
          if (result?.status === "published") {
            await recordEvent(trx, deps, { type: "post.updated", postId: post.id });
          }
          return result !== undefined;
        }),
    }),
  );
  if (!swapped) throw notFound(postMessages.notFound);
  return getPost(deps, actor, post.id);
}

/** Deletes a post with its comments, likes and body images (by cascade) and its image files. */
export async function deletePost(deps: CoreDeps, actor: Actor, id: string) {
  const post = await requirePost(deps, actor, id);
  if (!canDeletePost(actor, post)) throw forbidden(postMessages.deleteDenied);
  const imageKeys = await changingContent(deps, () =>
    deps.db.transaction().execute((trx) => deletePostIn(trx, deps, actor, post)),
  );
  await discardImages(deps, imageKeys);
  return { postId: post.id, message: postMessages.deleted };
}

/**
 * Deletes a post in the caller's transaction (logged when it is not the actor's own; the caller
 * has checked they may): the keys of its images, to discard once the transaction is committed.
 */
export async function deletePostIn(
  trx: Kysely<Database>,
  deps: Pick<CoreDeps, "clock" | "queued">,
  actor: Actor,
  post: Pick<PostsTable, "id" | "user_id" | "title" | "image_key">,
) {
  const keys = await bodyImageKeysOfPost(trx, post.id);
  const deleted = await trx
    .deleteFrom("posts")
    .where("id", "=", post.id)
    .returning("status")
    .executeTakeFirst();
  // A published post left the site (a draft was never news).
  if (deleted?.status === "published") {
    await recordEvent(trx, deps, { type: "post.deleted", postId: post.id });
  }
  if (actor.id !== post.user_id) {
    await recordAudit(trx, deps, actor, "post.delete", {
      kind: "post",
      id: post.id,
      summary: post.title,
    });
  }
  return [post.image_key, ...keys];
}

/**
 * Likes or unlikes. The (user, post) primary key makes a second like impossible: the insert is
 * skipped on conflict, and only then is the like removed, so concurrent likes all count once.
 * The route answers with the post as `GET /api/posts/:id` does, put together from kept pieces.
 */
export async function toggleLike(deps: CoreDeps, actor: Actor, id: string) {
  const post = await requirePost(deps, actor, id);
  // The author hears of a like in its transaction; an unlike takes that back while it is unread.
  const event = { kind: "like" as const, recipientId: post.user_id, postId: post.id };
  await changingContent(
    deps,
    () =>
      deps.db.transaction().execute(async (trx) => {
        const inserted = await trx
          .insertInto("likes")
          .values({ user_id: actor.id, post_id: post.id, created_at: iso(deps.clock()) })
          .onConflict((oc) => oc.columns(["user_id", "post_id"]).doNothing())
          .executeTakeFirst();
        if ((inserted.numInsertedOrUpdatedRows ?? 0n) === 0n) {
          await trx
            .deleteFrom("likes")
            .where("user_id", "=", actor.id)
            .where("post_id", "=", post.id)
            .execute();
          await withdrawNotification(trx, actor, event);
        } else {
          await notify(trx, deps, actor, event);
        }
      }),
    { postId: post.id },
  ).catch(async (error: unknown) => {
    if (!(await findPost(deps, post.id))) throw notFound(postMessages.notFound);
    throw error;
  });
}

/** Posts by id with their plain text (search results), compiled once per count of ids. */
const postsWithText = compiledOnce<Database>();

/**
 * Published posts by id, in the order given (a search's ranking), each with its body's plain text;
 * an id whose post is gone or no longer published is left out.
 */
export async function listPublishedPostsWithText(deps: CoreDeps, ids: readonly string[]) {
  if (ids.length === 0) return [];
  const rows = await postsWithText(deps.db, { shape: String(ids.length), parameters: ids }, () =>
    // By primary key alone: with the status in the WHERE, SQLite would walk the status index.
    selectPostSummaries(deps.db).select("posts.body_text").where("posts.id", "in", ids),
  );
  const byId = new Map(
    rows.filter((row) => row.status === "published").map((row) => [row.id, row]),
  );
  return ids.flatMap((id) => {
    const row = byId.get(id);
    return row ? [{ post: presentPostSummary(deps, row), text: row.body_text }] : [];
  });
}
