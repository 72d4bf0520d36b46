import { REVISIONS_PAGE_SIZE } from "../../contract/limits.js";
import { PageQuerySchema } from "../../contract/content.js";
import { pageMessages } from "../../contract/pages.js";
import type { CoreDeps } from "../deps.js";
import { pageOf } from "../posts/queries.js";
import { presentRevisionEntry } from "../posts/revisions.js";
import { notFound } from "../shared/errors.js";
import { isId } from "../shared/ids.js";
import { validate } from "../shared/validate.js";
import type { Actor } from "../users/policies.js";
import { findPageForAdmin, updatePage } from "./pages-service.js";

// A static page's revisions (decision 032), read and restored by admins; pages-service.ts keeps
// them as a page is edited.

/** `GET /api/pages/:id/revisions` (admins): newest first, a page at a time. */
export async function listPageRevisions(
  deps: CoreDeps,
  actor: Actor,
  pageId: string,
  query: unknown,
) {
  const page = await findPageForAdmin(deps, actor, pageId);
  const { pageNumber } = validate(PageQuerySchema.pick({ pageNumber: true }), query);
  const { limit, offset } = pageOf(pageNumber ?? 1, REVISIONS_PAGE_SIZE);
  const rows = await deps.db
    .selectFrom("page_revisions")
    .leftJoin("users", "users.id", "page_revisions.editor_id")
    .select([
      "page_revisions.id",
      "page_revisions.title",
      "page_revisions.created_at",
      "users.id as editor_id",
      "users.username as editor_username",
      "users.photo_key as editor_photo_key",
    ])
    .where("page_revisions.page_id", "=", page._id)
    .orderBy("page_revisions.created_at", "desc")
    .orderBy("page_revisions.id", "desc")
    .limit(limit)
    .offset(offset)
    .execute();
  return rows.map((row) => presentRevisionEntry(deps, row));
}

/** `GET /api/pages/:id/revisions/:revisionId` (admins): the text it kept. */
export async function getPageRevision(
  deps: CoreDeps,
  actor: Actor,
  pageId: string,
  revisionId: string,
) {
  const page = await findPageForAdmin(deps, actor, pageId);
  const row = isId(revisionId)
    ? await deps.db
        .selectFrom("page_revisions")
        .select(["id", "title", "description", "created_at"])
        .where("id", "=", revisionId)
        .where("page_id", "=", page._id)
        .executeTakeFirst()
    : undefined;
  if (!row) throw notFound(pageMessages.revisionNotFound);
  return { _id: row.id, createdAt: row.created_at, title: row.title, description: row.description };
}

/**
 * `POST /api/pages/:id/revisions/:revisionId/restore` (admins): the page takes the revision's
 * text back as an edit (the text it replaces becomes a revision too).
 */
export async function restorePageRevision(
  deps: CoreDeps,
  actor: Actor,
  pageId: string,
  revisionId: string,
) {
  const revision = await getPageRevision(deps, actor, pageId, revisionId);
  return updatePage(deps, actor, pageId, {
    title: revision.title,
    description: revision.description,
  });
}
