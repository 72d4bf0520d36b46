import { PageQuerySchema } from "../../contract/content.js";
import { REVISIONS_PAGE_SIZE } from "../../contract/limits.js";
import { findCategoryByTitle } from "../categories/categories-service.js";
import type { CoreDeps } from "../deps.js";
import { notFound } from "../shared/errors.js";
import { isId } from "../shared/ids.js";
import { validate } from "../shared/validate.js";
import { presentPublicUser } from "../users/presenters.js";
import type { Actor } from "../users/policies.js";
import { canSeeRevisionsOf } from "./policies.js";
import { findVisiblePost, postMessages, updatePost } from "./posts-service.js";
import { tagsOf } from "./presenters.js";
import { pageOf } from "./queries.js";

// Revisions (DESIGN.md 10, "Writing"; decision 022): kept by `updatePost`, read and restored here.

export const revisionMessages = { notFound: "Revision not found" } as const;

/** The post whose revisions `actor` asks for: its author's and admins', a 404 for anyone else. */
async function postWithRevisions(deps: CoreDeps, actor: Actor, postId: string) {
  const post = await findVisiblePost(deps, actor, postId);
  if (!post || !canSeeRevisionsOf(actor, post)) throw notFound(postMessages.notFound);
  return post;
}

/** `GET /api/posts/:id/revisions`: newest first, a page at a time. */
export async function listRevisions(deps: CoreDeps, actor: Actor, postId: string, query: unknown) {
  const post = await postWithRevisions(deps, actor, postId);
  return revisionsOf(deps, post.id, query);
}

/** A page of a post's revisions, for a caller already allowed to read them. */
export async function revisionsOf(deps: CoreDeps, postId: string, query: unknown) {
  const { pageNumber } = validate(PageQuerySchema.pick({ pageNumber: true }), query);
  const { limit, offset } = pageOf(pageNumber ?? 1, REVISIONS_PAGE_SIZE);
  const rows = await deps.db
    .selectFrom("post_revisions")
    .leftJoin("users", "users.id", "post_revisions.editor_id")
    .select([
      "post_revisions.id",
      "post_revisions.title",
      "post_revisions.created_at",
      "users.id as editor_id",
      "users.username as editor_username",
      "users.photo_key as editor_photo_key",
    ])
    .where("post_revisions.post_id", "=", postId)
    .orderBy("post_revisions.created_at", "desc")
    .orderBy("post_revisions.id", "desc")
    .limit(limit)
    .offset(offset)
    .execute();
  return rows.map((row) => presentRevisionEntry(deps, row));
}

/**
 * A revision in a list (a post's or a static page's): when, who made the edit that replaced this
 * text (null once their account is deleted), and the title it had.
 */
export const presentRevisionEntry = (
  deps: Pick<CoreDeps, "storage" | "site">,
  row: {
    id: string;
    created_at: string;
    title: string;
    editor_id: string | null;
    editor_username: string | null;
    editor_photo_key: string | null;
  },
) => ({
  _id: row.id,
  createdAt: row.created_at,
  editor:
    row.editor_id === null || row.editor_username === null
      ? null
      : presentPublicUser(deps, {
          id: row.editor_id,
          username: row.editor_username,
          photo_key: row.editor_photo_key,
        }),
  title: row.title,
});

/** `GET /api/posts/:id/revisions/:revisionId`: the text it kept. */
export async function getRevision(
  deps: CoreDeps,
  actor: Actor,
  postId: string,
  revisionId: string,
) {
  const post = await postWithRevisions(deps, actor, postId);
  return revisionOf(deps, post.id, revisionId);
}

/** One revision of a post, for a caller already allowed to read them; 404 when it is not one. */
export async function revisionOf(deps: CoreDeps, postId: string, revisionId: string) {
  const row = isId(revisionId)
    ? await deps.db
        .selectFrom("post_revisions")
        .select(["id", "title", "description", "category", "tags", "created_at"])
        .where("id", "=", revisionId)
        .where("post_id", "=", postId)
        .executeTakeFirst()
    : undefined;
  if (!row) throw notFound(revisionMessages.notFound);
  return {
    _id: row.id,
    createdAt: row.created_at,
    title: row.title,
    description: row.description,
    category: row.category,
    tags: tagsOf(row.tags),
  };
}

/**
 * `POST /api/posts/:id/revisions/:revisionId/restore`: the post takes the revision's text back, as
 * an edit by its author does (so the text it replaces becomes a revision too).
 */
export async function restoreRevision(
  deps: CoreDeps,
  actor: Actor,
  postId: string,
  revisionId: string,
) {
  const revision = await getRevision(deps, actor, postId, revisionId);
  // A category deleted since cannot be chosen again: the post keeps the one it has (and says so
  // in the editor's diff, which still shows the revision's).
  const category = (await findCategoryByTitle(deps, revision.category))?.title;
  return updatePost(deps, actor, postId, {
    title: revision.title,
    description: revision.description,
    ...(category === undefined ? {} : { category }),
    tags: revision.tags,
  });
}
