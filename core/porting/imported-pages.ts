import type { Kysely } from "kysely";
import {
  META_DESCRIPTION_MAX,
  POST_DESCRIPTION_MAX,
  POST_TITLE_MAX,
} from "../../contract/limits.js";
import { isPageSlug, PAGE_SLUG_MAX, slugFrom } from "../../contract/page-rules.js";
import type { Database } from "../../db/schema.js";
import type { CoreDeps } from "../deps.js";
import { discardImages } from "../media/images.js";
import { renderPageBody } from "../pages/pages-service.js";
import { DomainError } from "../shared/errors.js";
import { newId } from "../shared/ids.js";
import type { Actor } from "../users/policies.js";
import type { BlogImportReport } from "./blog-import.js";
import type { ForeignAuthor, ForeignBlog, ForeignPage } from "./foreign.js";
import {
  importedTitle,
  recordBodyImages,
  strayLinks,
  titleShortened,
  type ImportedImages,
  type ImportedItem,
} from "./imported-bodies.js";
import type { Progress } from "./progress.js";

// A blog's static pages become pages here (decision 032): a slug of their own, the body converted
// and its images stored as a post's, rendered as a page an admin writes (its links followed).

/** A page of the export with the title and slug it has here, known before anything is written. */
export interface PagePlan {
  page: ForeignPage;
  title: string;
  slug: string;
  /** A page with this title and creation time is here already (an earlier run's): skipped. */
  present: boolean;
}

/**
 * Each page's title and slug here: the source's slug when it is one here, else its title's
 * (`page` when that has no letter or digit), with `-2`, `-3`... when a page here has it (now or as
 * an old address) or an earlier page of the export took it. A page imported by an earlier run
 * keeps its slug. `links` leads the source's slugs to the slugs here (for links to the pages).
 */
export async function planPages(db: Kysely<Database>, pages: readonly ForeignPage[]) {
  const taken = new Set<string>();
  const plans: PagePlan[] = [];
  const links = new Map<string, string>();
  for (const page of pages) {
    const title = importedTitle(page.title);
    const existing = await db
      .selectFrom("pages")
      .select("slug")
      .where("title", "=", title)
      .where("created_at", "=", page.createdAt)
      .executeTakeFirst();
    let slug = existing?.slug;
    if (slug === undefined) {
      const own = page.slug.toLowerCase();
      const base = isPageSlug(own) ? own : slugFrom(title) || "page";
      slug = base;
      for (let count = 2; taken.has(slug) || (await slugInUse(db, slug)); count += 1)
        slug = numbered(base, count);
    }
    taken.add(slug);
    plans.push({ page, title, slug, present: existing !== undefined });
    if (page.slug !== "" && !links.has(page.slug)) links.set(page.slug, slug);
  }
  return { plans, links };
}

/** `base-2`, cut so the whole stays within the longest slug. */
const numbered = (base: string, count: number) => {
  const suffix = `-${String(count)}`;
  return `${base.slice(0, PAGE_SLUG_MAX - suffix.length).replace(/-+$/, "")}${suffix}`;
};

/** Whether a page here has the slug, as its address or as an old one that redirects. */
async function slugInUse(db: Kysely<Database>, slug: string) {
  const page = await db
    .selectFrom("pages")
    .select("id")
    .where("slug", "=", slug)
    .executeTakeFirst();
  if (page) return true;
  const old = await db
    .selectFrom("page_slugs")
    .select("slug")
    .where("slug", "=", slug)
    .executeTakeFirst();
  return old !== undefined;
}

/** The meta description as a page keeps it: spaces collapsed, cut at a word to the limit. */
function fittedDescription(source: string | null, notes: string[]) {
  const text = (source ?? "").trim().replace(/\s+/g, " ");
  if (text === "") return null;
  if (text.length <= META_DESCRIPTION_MAX) return text;
  notes.push(`meta description shortened to ${String(META_DESCRIPTION_MAX)} characters`);
  const cut = text.slice(0, META_DESCRIPTION_MAX - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > META_DESCRIPTION_MAX / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

export interface PageImport {
  deps: CoreDeps;
  blog: ForeignBlog;
  report: BlogImportReport;
  images: ImportedImages;
  /** The account of an author of the export (made when new). */
  accountOf: (author: ForeignAuthor) => Promise<Actor>;
  /** The body with its links to the old site's posts and pages led here. */
  relinked: (item: ImportedItem, markdown: string) => string;
  progress?: Progress | undefined;
}

/**
 * Writes each planned page in a transaction of its own, as posts are; a page that cannot be is a
 * line of the report (and its slug is taken out of `links`, so no link leads to it). Returns the
 * refs of the pages written.
 */
export async function importPages(
  context: PageImport,
  plans: readonly PagePlan[],
  links: Map<string, string>,
) {
  const written: string[] = [];
  if (plans.length === 0) return written;
  // Only admins write pages, and a page keeps the uploads of an admin when edited: its images are
  // the site's first admin's uploads where there is one.
  const admin = await context.deps.db
    .selectFrom("users")
    .select("id")
    .where("is_admin", "=", 1)
    .orderBy("created_at")
    .orderBy("id")
    .executeTakeFirst();
  context.progress?.start(`${context.blog.source} pages`, plans.length);
  for (const plan of plans) {
    context.progress?.tick();
    if (await importPage(context, plan, admin?.id)) written.push(plan.page.ref);
    else if (!plan.present && links.get(plan.page.slug) === plan.slug) links.delete(plan.page.slug);
  }
  context.progress?.done();
  return written;
}

/** One page written, or its line in the report (false). */
async function importPage(context: PageImport, plan: PagePlan, adminId: string | undefined) {
  const { deps, blog, report } = context;
  const { page, title, slug } = plan;
  const item: ImportedItem = { kind: "page", ref: page.ref };
  const skip = (reason: string) => {
    report.skipped.push({ item: `page ${page.ref}`, reason });
    return false;
  };
  if (titleShortened(page.title))
    report.notes.push(`page ${page.ref}: title shortened to ${String(POST_TITLE_MAX)} characters`);
  if (plan.present)
    return skip("already imported (a page with this title and creation time exists)");
  if (page.markdown.length > 2 * POST_DESCRIPTION_MAX)
    return skip(
      `its body is ${String(page.markdown.length)} characters as Markdown; pages may have ${String(POST_DESCRIPTION_MAX)}`,
    );
  if (page.markdown.trim() === "") return skip("it has no body");
  const notes: string[] = [];
  const author = blog.authors.find((candidate) => candidate.ref === page.authorRef);
  const actor = author ? await context.accountOf(author) : undefined;
  if (!author)
    notes.push(
      `its author ${page.authorRef || "(none named)"} is not in the export: the page has no author here`,
    );
  const stored: string[] = [];
  try {
    const linked = context.relinked(item, page.markdown);
    const stray = strayLinks(linked);
    if (stray.length > 0)
      notes.push(
        `links to the old site's pages that were not imported lead to paths this site does not have: ${stray.join(", ")}`,
      );
    const { markdown, bodyImages } = await context.images.localBody(
      item,
      page.markdown,
      linked,
      stored,
    );
    if (markdown.length > POST_DESCRIPTION_MAX) {
      await discardImages(deps, stored);
      return skip(
        `its body is ${String(markdown.length)} characters as Markdown; pages may have ${String(POST_DESCRIPTION_MAX)}`,
      );
    }
    // Written before the page, as an upload is: the renderer reads their sizes.
    await recordBodyImages(deps.db, bodyImages, adminId ?? actor?.id ?? null, page.createdAt);
    const body = await renderPageBody(deps, markdown);
    // Nothing the source hid becomes public here: such a page waits as a draft (decision 019).
    const status = page.hiddenBecause === null ? page.status : "draft";
    const shown = new Set(body.rendered.imageKeys);
    const claimed = stored.filter((key) => shown.has(key));
    const id = newId();
    await deps.db.transaction().execute(async (trx) => {
      await trx
        .insertInto("pages")
        .values({
          id,
          slug,
          author_id: actor?.id ?? null,
          title,
          description: markdown,
          html: body.rendered.html,
          excerpt: body.rendered.excerpt,
          meta_description: fittedDescription(page.metaDescription, notes),
          status,
          published_at: status === "published" ? (page.publishedAt ?? page.createdAt) : null,
          created_at: page.createdAt,
          updated_at: page.updatedAt < page.createdAt ? page.createdAt : page.updatedAt,
        })
        .execute();
      if (claimed.length > 0)
        await trx
          .updateTable("body_images")
          .set({ page_id: id })
          .where("image_key", "in", claimed)
          .execute();
    });
    report.imported.pages += 1;
    report.imported.images += stored.length;
    for (const note of [...notes, ...page.notes]) report.notes.push(`page ${page.ref}: ${note}`);
    if (page.hiddenBecause !== null)
      report.drafts.push({ kind: "page", ref: page.ref, title, reason: page.hiddenBecause });
    return true;
  } catch (error) {
    if (stored.length > 0)
      await deps.db.deleteFrom("body_images").where("image_key", "in", stored).execute();
    await discardImages(deps, stored);
    if (error instanceof DomainError) return skip(error.message);
    throw error;
  }
}
