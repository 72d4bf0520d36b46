import type { Kysely, Selectable } from "kysely";
import {
  isPageSlug,
  PageCreateSchema,
  pageMessages,
  PageUpdateSchema,
} from "../../contract/pages.js";
import type { Database, PagesTable, PageStatus } from "../../db/schema.js";
import { recordAudit } from "../audit/audit-log.js";
import type { CoreDeps } from "../deps.js";
import { bodyImagesNamedIn, imageSizesOf, keysNamedIn } from "../posts/body-images.js";
import { AUTOSAVE_REVISION_MS } from "../posts/posts-service.js";
import { changingContent } from "../shared/content-changes.js";
import { iso } from "../shared/clock.js";
import { conflict, DomainError, forbidden, invalid, notFound } from "../shared/errors.js";
import { isId, newId } from "../shared/ids.js";
import { validate } from "../shared/validate.js";
import { presentPublicUser } from "../users/presenters.js";
import type { Actor } from "../users/policies.js";

// Static pages (DESIGN.md 11, "Pages and series"; decision 032): written by admins with the
// posts' Markdown renderer, served at `/pages/:slug`, never in post lists, feeds or newsletters.

type PageRow = Selectable<PagesTable>;

/** How many revisions a page keeps at least, as a post (DESIGN.md 10). */
const REVISIONS_KEPT = 50;

const requireAdmin = (actor: Actor) => {
  if (!actor.isAdmin) throw forbidden(pageMessages.adminsOnly);
};

const canSee = (actor: Actor | undefined, page: Pick<PageRow, "status">) =>
  page.status === "published" || actor?.isAdmin === true;

/** A page as the API answers it: its Markdown source, its rendering and who wrote it. */
export function presentPage(
  deps: Pick<CoreDeps, "storage" | "site">,
  page: PageRow,
  author: { username: string | null; photo_key: string | null },
) {
  return {
    _id: page.id,
    slug: page.slug,
    title: page.title,
    description: page.description,
    html: page.html,
    excerpt: page.excerpt,
    metaDescription: page.meta_description,
    status: page.status,
    author:
      page.author_id === null || author.username === null
        ? null
        : presentPublicUser(deps, {
            id: page.author_id,
            username: author.username,
            photo_key: author.photo_key,
          }),
    publishedAt: page.published_at,
    createdAt: page.created_at,
    updatedAt: page.updated_at,
  };
}

export type PresentedPage = ReturnType<typeof presentPage>;

const pageWithAuthor = (db: Kysely<Database>) =>
  db
    .selectFrom("pages")
    .leftJoin("users", "users.id", "pages.author_id")
    .selectAll("pages")
    .select(["users.username", "users.photo_key"]);

async function pageById(deps: CoreDeps, id: string) {
  if (!isId(id)) return undefined;
  return pageWithAuthor(deps.db).where("pages.id", "=", id).executeTakeFirst();
}

/** A page by its id, for an admin (drafts included); 404 for anyone else or none. */
export async function findPageForAdmin(deps: CoreDeps, actor: Actor, id: string) {
  requireAdmin(actor);
  const row = await pageById(deps, id);
  if (!row) throw notFound(pageMessages.notFound);
  return presentPage(deps, row, row);
}

/**
 * The page at `slug` as `actor` may see it, or where it moved: an old slug names the page's
 * current one (`movedTo`), so the site redirects there. A draft is an admin's alone (404 else).
 */
export async function findPageBySlug(deps: CoreDeps, actor: Actor | undefined, slug: string) {
  const key = slug.toLowerCase();
  if (!isPageSlug(key)) throw notFound(pageMessages.notFound);
  const row = await pageWithAuthor(deps.db).where("pages.slug", "=", key).executeTakeFirst();
  if (row) {
    if (!canSee(actor, row)) throw notFound(pageMessages.notFound);
    return { page: presentPage(deps, row, row), movedTo: key === slug ? undefined : row.slug };
  }
  const moved = await pageWithAuthor(deps.db)
    .innerJoin("page_slugs", "page_slugs.page_id", "pages.id")
    .where("page_slugs.slug", "=", key)
    .executeTakeFirst();
  if (!moved || !canSee(actor, moved)) throw notFound(pageMessages.notFound);
  return { page: presentPage(deps, moved, moved), movedTo: moved.slug };
}

const byTitle = new Intl.Collator("en", { sensitivity: "base", numeric: true });

/**
 * `GET /api/pages`: the published pages by title for anyone; every page for an admin, drafts
 * included. No bodies: a list names pages, each page is read by its slug.
 */
export async function listPages(deps: CoreDeps, actor: Actor | undefined) {
  const rows = await deps.db
    .selectFrom("pages")
    .select(["id", "slug", "title", "meta_description", "status", "published_at", "updated_at"])
    .$if(actor?.isAdmin !== true, (query) => query.where("status", "=", "published"))
    .execute();
  // By title as a reader sorts them ("about", "Über uns", "Zebra"), alike on both engines: a
  // site has a handful of pages, sorted here rather than by each database's own collation.
  rows.sort((a, b) => byTitle.compare(a.title, b.title) || (a.id < b.id ? -1 : 1));
  return rows.map((row) => ({
    _id: row.id,
    slug: row.slug,
    title: row.title,
    metaDescription: row.meta_description,
    status: row.status,
    publishedAt: row.published_at,
    updatedAt: row.updated_at,
  }));
}

/** The published pages' addresses and last changes (the sitemap's). */
export async function listPublishedPageStamps(deps: Pick<CoreDeps, "db">) {
  return deps.db
    .selectFrom("pages")
    .select(["slug", "updated_at"])
    .where("status", "=", "published")
    .orderBy("slug")
    .execute();
}

/** A page body's rendering, with the uploads it names (rendered on the render thread). */
export async function renderPageBody(deps: CoreDeps, description: string) {
  const named = await bodyImagesNamedIn(deps.db, description);
  const rendered = await deps.renderMarkdown(description, {
    // Pages are written by admins: their links are followed, as an admin's posts' are.
    followLinks: true,
    imageBases: [deps.storage.url("x").slice(0, -1)],
    imageSizes: imageSizesOf(named),
  });
  return { rendered, named };
}

type RenderedPageBody = Awaited<ReturnType<typeof renderPageBody>>;

/**
 * Links a page to the uploads its body shows that no post or other page has (uploaded by an
 * admin: only admins write pages), and lets go of those neither it nor its revisions name any
 * more (swept a day later unless claimed again), in the transaction that writes the page.
 */
async function claimPageImages(
  db: Kysely<Database>,
  pageId: string,
  body: RenderedPageBody,
  now: string,
) {
  const shown = new Set(body.rendered.imageKeys);
  const claimed = body.named
    .filter(
      (image) =>
        shown.has(image.image_key) &&
        image.post_id === null &&
        // Its own images whoever uploaded them (an import's), or an admin's upload no page has.
        (image.page_id === pageId || (image.page_id === null && image.uploader_is_admin === 1)),
    )
    .map((image) => image.image_key);
  if (claimed.length > 0) {
    await db
      .updateTable("body_images")
      .set({ page_id: pageId, released_at: null })
      .where("image_key", "in", claimed)
      .where("post_id", "is", null)
      .where((eb) => eb.or([eb("page_id", "is", null), eb("page_id", "=", pageId)]))
      .execute();
  }
  const revisions = await db
    .selectFrom("page_revisions")
    .select("description")
    .where("page_id", "=", pageId)
    .execute();
  const kept = [...new Set([...claimed, ...revisions.flatMap((r) => keysNamedIn(r.description))])];
  let released = db
    .updateTable("body_images")
    .set({ page_id: null, released_at: now })
    .where("page_id", "=", pageId);
  if (kept.length > 0) released = released.where("image_key", "not in", kept);
  await released.execute();
}

/**
 * Makes `slug` the page's: refused (409 naming `slug`) when another page has it now; an old slug
 * (another page's or this one's) is taken over, so its redirect ends.
 */
async function takeSlug(db: Kysely<Database>, slug: string, pageId: string) {
  const holder = await db
    .selectFrom("pages")
    .select("id")
    .where("slug", "=", slug)
    .executeTakeFirst();
  if (holder && holder.id !== pageId) throw slugTaken();
  await db.deleteFrom("page_slugs").where("slug", "=", slug).execute();
}

const slugTaken = () =>
  new DomainError("conflict", pageMessages.slugTaken, { slug: pageMessages.slugTaken });

/** `POST /api/pages` (admins). */
export async function createPage(deps: CoreDeps, actor: Actor, input: unknown) {
  requireAdmin(actor);
  const fields = validate(PageCreateSchema, input);
  const body = await renderPageBody(deps, fields.description);
  const now = iso(deps.clock());
  const status: PageStatus = fields.status ?? "published";
  const id = newId();
  await changingContent(deps, () =>
    deps.db.transaction().execute(async (trx) => {
      await takeSlug(trx, fields.slug, id);
      await trx
        .insertInto("pages")
        .values({
          id,
          slug: fields.slug,
          author_id: actor.id,
          title: fields.title,
          description: fields.description,
          html: body.rendered.html,
          excerpt: body.rendered.excerpt,
          meta_description: fields.metaDescription || null,
          status,
          published_at: status === "published" ? now : null,
          created_at: now,
          updated_at: now,
        })
        .execute();
      await claimPageImages(trx, id, body, now);
      await recordAudit(trx, deps, actor, "page.create", {
        kind: "page",
        id,
        summary: fields.title,
      });
    }),
  ).catch(slugRace(deps, fields.slug, id));
  return findPageForAdmin(deps, actor, id);
}

/**
 * A write refused by the database's unique slug (another admin took it between the check and the
 * write) is the same 409 as one the check caught; anything else is rethrown.
 */
const slugRace = (deps: CoreDeps, slug: string, pageId: string) => async (error: unknown) => {
  const holder = await deps.db
    .selectFrom("pages")
    .select("id")
    .where("slug", "=", slug)
    .executeTakeFirst();
  if (holder && holder.id !== pageId) throw slugTaken();
  throw error;
};

export const pageAutosaveMessages = {
  notDraft: "Only a draft page saves itself: save this page with its button",
} as const;

/**
 * `PUT /api/pages/:id` (admins): any of the fields; the text it replaces is kept as a revision.
 * `autosave`: a draft saving itself as an admin types (the editor, as a post's draft does,
 * decision 022): only over the version it was read at (409 else), a revision at most every
 * `AUTOSAVE_REVISION_MS`, not audited (a draft is nobody's news until it is saved or published
 * with the button, which is) and no kept render made again (no one but admins sees a draft).
 */
export async function updatePage(
  deps: CoreDeps,
  actor: Actor,
  id: string,
  input: unknown,
  options: { autosave?: boolean } = {},
) {
  requireAdmin(actor);
  const fields = validate(PageUpdateSchema, input);
  const page = await pageById(deps, id);
  if (!page) throw notFound(pageMessages.notFound);
  const { autosave = false } = options;
  if (autosave && (page.status !== "draft" || (fields.status ?? "draft") !== "draft")) {
    throw invalid(pageAutosaveMessages.notDraft);
  }
  if ((fields.updatedAt !== undefined || autosave) && fields.updatedAt !== page.updated_at) {
    throw conflict(pageMessages.changedElsewhere);
  }
  const body =
    fields.description === undefined || fields.description === page.description
      ? undefined
      : await renderPageBody(deps, fields.description);
  const now = iso(deps.clock());
  // A save by itself leaves the address alone: half-typed, it would take a slug (and end the
  // redirect another page keeps there) or clash with one; the button saves it.
  const slug = (autosave ? undefined : fields.slug) ?? page.slug;
  const status = fields.status ?? page.status;
  const textChanges =
    (fields.title !== undefined && fields.title !== page.title) || body !== undefined;
  const write = () =>
    deps.db.transaction().execute(async (trx) => {
      // Another page's slug is refused before anything is written.
      if (slug !== page.slug) await takeSlug(trx, slug, page.id);
      // The row first: written over the page as it was read, so of two admins' saves one wins and
      // the other (waiting on the row's lock on PostgreSQL) writes nothing and gets the 409.
      const updated = await trx
        .updateTable("pages")
        .set({
          slug,
          ...(fields.title === undefined ? {} : { title: fields.title }),
          ...(body === undefined
            ? {}
            : {
                description: fields.description,
                html: body.rendered.html,
                excerpt: body.rendered.excerpt,
              }),
          ...(fields.metaDescription === undefined
            ? {}
            : { meta_description: fields.metaDescription || null }),
          status,
          published_at: page.published_at ?? (status === "published" ? now : null),
          updated_at: now,
        })
        .where("id", "=", page.id)
        .where("updated_at", "=", page.updated_at)
        .executeTakeFirst();
      if (updated.numUpdatedRows !== 1n) throw conflict(pageMessages.changedElsewhere);
      if (slug !== page.slug) {
        await trx
          .insertInto("page_slugs")
          .values({ slug: page.slug, page_id: page.id, created_at: now })
          .execute();
      }
      if (textChanges && !(autosave && (await revisedLately(trx, page.id, now)))) {
        await keepRevision(trx, page, actor.id, now);
      }
      if (body) await claimPageImages(trx, page.id, body, now);
      if (autosave) return;
      await recordAudit(trx, deps, actor, "page.update", {
        kind: "page",
        id: page.id,
        summary: fields.title ?? page.title,
      });
    });
  // A draft saving itself stays a draft: nothing anyone else sees has changed.
  await (autosave ? write() : changingContent(deps, write)).catch(slugRace(deps, slug, page.id));
  return findPageForAdmin(deps, actor, page.id);
}

/** Whether a page's last revision is younger than `AUTOSAVE_REVISION_MS` at `now`. */
async function revisedLately(db: Kysely<Database>, pageId: string, now: string) {
  const since = new Date(Date.parse(now) - AUTOSAVE_REVISION_MS).toISOString();
  const recent = await db
    .selectFrom("page_revisions")
    .select("id")
    .where("page_id", "=", pageId)
    .where("created_at", ">", since)
    .limit(1)
    .executeTakeFirst();
  return recent !== undefined;
}

/** Keeps a page's text before an edit, and lets the oldest go beyond `REVISIONS_KEPT`. */
async function keepRevision(db: Kysely<Database>, page: PageRow, editorId: string, now: string) {
  await db
    .insertInto("page_revisions")
    .values({
      id: newId(),
      page_id: page.id,
      editor_id: editorId,
      title: page.title,
      description: page.description,
      created_at: now,
    })
    .execute();
  const kept = db
    .selectFrom("page_revisions")
    .select("id")
    .where("page_id", "=", page.id)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(REVISIONS_KEPT);
  await db
    .deleteFrom("page_revisions")
    .where("page_id", "=", page.id)
    .where("id", "not in", kept)
    .execute();
}

/** `DELETE /api/pages/:id` (admins): its revisions and old slugs go with it; its images are let go. */
export async function deletePage(deps: CoreDeps, actor: Actor, id: string) {
  requireAdmin(actor);
  const page = await pageById(deps, id);
  if (!page) throw notFound(pageMessages.notFound);
  const now = iso(deps.clock());
  await changingContent(deps, () =>
    deps.db.transaction().execute(async (trx) => {
      await trx
        .updateTable("body_images")
        .set({ page_id: null, released_at: now })
        .where("page_id", "=", page.id)
        .execute();
      await trx.deleteFrom("pages").where("id", "=", page.id).execute();
      await recordAudit(trx, deps, actor, "page.delete", {
        kind: "page",
        id: page.id,
        summary: page.title,
      });
    }),
  );
  return { pageId: page.id, message: pageMessages.deleted };
}
