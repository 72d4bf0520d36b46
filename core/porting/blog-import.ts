import { postPath, pagePath } from "../../contract/page-paths.js";
import {
  CATEGORY_TITLE_MAX,
  CATEGORY_TITLE_MIN,
  COMMENT_MAX,
  COMMENT_MIN,
  IMAGE_CREATE_MAX_BYTES,
  POST_DESCRIPTION_MAX,
  POST_TITLE_MAX,
  TAG_MAX,
  TAG_MIN,
  TAGS_MAX,
} from "../../contract/limits.js";
import type { CommentsTable, PostsTable } from "../../db/schema.js";
import type { Insertable } from "kysely";
import sharp from "sharp";
import type { CoreDeps } from "../deps.js";
import { discardImages, encodeImage, putImage } from "../media/images.js";
import { bodyFor } from "../posts/posts-service.js";
import { DomainError } from "../shared/errors.js";
import { newId } from "../shared/ids.js";
import type { SiteSettingsDefaults } from "../site-settings/site-settings-service.js";
import type { ForeignBlog, ForeignPost } from "./foreign.js";
import { importedAccounts } from "./imported-accounts.js";
import {
  importedImages,
  importedTitle,
  MARKDOWN_LINK,
  recordBodyImages,
  strayLinks,
  tagFrom,
  titleShortened,
  type ImportedItem,
} from "./imported-bodies.js";
import { importNavigation, type NavigationOutcome } from "./imported-navigation.js";
import { importPages, planPages } from "./imported-pages.js";
import type { Progress } from "./progress.js";

export interface BlogImportReport {
  imported: {
    authors: number;
    categories: number;
    posts: number;
    pages: number;
    comments: number;
    images: number;
  };
  /** Accounts that existed already (by e-mail address) and got the posts. */
  existingAuthors: number;
  skipped: { item: string; reason: string }[];
  /**
   * Posts and pages the source did not show to everyone (password-protected, private...), kept
   * as drafts.
   */
  drafts: { kind: ImportedItem["kind"]; ref: string; title: string; reason: string }[];
  /** Images the body or feature named that the folder does not have (or that are not images). */
  missingImages: { kind: ImportedItem["kind"]; ref: string; url: string; reason: string }[];
  /** Changes made to fit this site's rules (a title shortened, a placeholder image...). */
  notes: string[];
  /** What became of the source's navigation (Ghost's), when it has one. */
  navigation?: NavigationOutcome;
}

/** Where imported posts without a category are filed (WordPress's own name for it). */
export const DEFAULT_CATEGORY = "Uncategorized";

/**
 * Adds a blog from another platform to this site (decision 019): authors become accounts that
 * must reset their password, categories are made as needed, each page and each post (with its
 * images and comments) is written in one transaction through the same renderer and limits as a
 * new one, and the source's navigation becomes the site's when the site has none saved yet.
 * A post or page already imported (same title and creation time) is skipped, so a second run adds
 * nothing.
 */
export async function importBlog(
  deps: CoreDeps,
  blog: ForeignBlog,
  options: {
    imagesDir?: string | undefined;
    progress?: Progress | undefined;
    /** What the site shows until its settings are saved: the navigation may be the first saved. */
    siteDefaults: SiteSettingsDefaults;
  },
): Promise<BlogImportReport> {
  const report: BlogImportReport = {
    imported: { authors: 0, categories: 0, posts: 0, pages: 0, comments: 0, images: 0 },
    existingAuthors: 0,
    skipped: [...blog.skipped],
    drafts: [],
    missingImages: [],
    notes: [],
  };
  const images = await importedImages(deps, blog, options.imagesDir, report);
  const authors = new Map(blog.authors.map((author) => [author.ref, author]));
  const { accountFor, commentersNote } = importedAccounts(deps, report);

  // A category is as old as its first post, never older than now (a scheduled post's date).
  const now = new Date().toISOString();
  const categoryDates = new Map<string, string>();
  for (const post of blog.posts) {
    const key = categoryTitle(post).toLowerCase();
    const known = categoryDates.get(key);
    if (known === undefined || post.createdAt < known) categoryDates.set(key, post.createdAt);
  }

  async function categoryFor(post: ForeignPost) {
    const title = categoryTitle(post);
    const key = title.toLowerCase();
    const existing = await deps.db
      .selectFrom("categories")
      .select("title")
      .where("title_key", "=", key)
      .executeTakeFirst();
    if (existing) return existing.title;
    const first = categoryDates.get(key) ?? now;
    await deps.db
      .insertInto("categories")
      .values({ id: newId(), title, title_key: key, created_at: first < now ? first : now })
      .execute();
    report.imported.categories += 1;
    return title;
  }

  // Each post's id here, known before any is written: links between them lead here (a slug two
  // posts share leads nowhere in particular and is left as it was). A post imported by an
  // earlier run keeps the id it has. Each page's slug likewise.
  const refCounts = new Map<string, number>();
  for (const post of blog.posts) refCounts.set(post.ref, (refCounts.get(post.ref) ?? 0) + 1);
  const postIds = new Map<string, string>();
  const existingIds = new Set<string>();
  /** The posts already here (same title and creation time), by that pair. */
  const present = new Set<string>();
  const presenceOf = (post: ForeignPost) => `${importedTitle(post.title)}\u0000${post.createdAt}`;
  for (const post of blog.posts) {
    const existing = await deps.db
      .selectFrom("posts")
      .select("id")
      .where("title", "=", importedTitle(post.title))
      .where("created_at", "=", post.createdAt)
      .executeTakeFirst();
    if (existing) {
      existingIds.add(existing.id);
      present.add(presenceOf(post));
    }
    if (refCounts.get(post.ref) === 1) postIds.set(post.ref, existing?.id ?? newId());
  }
  const pagePlan = await planPages(deps.db, blog.pages);
  const writtenIds = new Set<string>();
  /** The posts and pages written (as the report names them: `post slug`, `page slug`). */
  const written = new Set<string>();
  /** For each post or page (as the report names it), the posts its links were led to. */
  const linkedRefs = new Map<string, Set<string>>();
  const oldSite = blog.siteUrl?.replace(/\/+$/, "");
  /** Links to the old site's posts and pages, now to the same posts and pages here. */
  const relinked = (item: ImportedItem, markdown: string) =>
    markdown.replace(
      MARKDOWN_LINK,
      (whole, bang: string, label: string, url: string, title = "") => {
        if (bang === "!") return whole;
        const local = url.startsWith("/")
          ? url
          : oldSite && url.startsWith(`${oldSite}/`)
            ? url.slice(oldSite.length)
            : undefined;
        const segments = local?.split(/[?#]/)[0]?.split("/").filter(Boolean) ?? [];
        // A tag's, a category's or an author's page is no post, whatever its last word.
        if (segments.some((segment) => NOT_POSTS.has(segment.toLowerCase()))) return whole;
        const slug = segments.at(-1);
        if (slug === undefined) return whole;
        const id = postIds.get(slug);
        if (id) {
          const from = `${item.kind} ${item.ref}`;
          linkedRefs.set(from, (linkedRefs.get(from) ?? new Set()).add(slug));
          return `[${label}](${postPath(id)}${String(title)})`;
        }
        const page = pagePlan.links.get(slug);
        return page === undefined ? whole : `[${label}](${pagePath(page)}${String(title)})`;
      },
    );

  // Pages first: the links of the posts then lead only to pages that are here.
  const pagesWritten = await importPages(
    {
      deps,
      blog,
      report,
      images,
      accountOf: (author) => accountFor(author.name, author.email, author.bio, author.ref),
      relinked,
      progress: options.progress,
    },
    pagePlan.plans,
    pagePlan.links,
  );
  for (const ref of pagesWritten) written.add(`page ${ref}`);

  options.progress?.start(`${blog.source} posts`, blog.posts.length);
  for (const post of blog.posts) {
    options.progress?.tick();
    const skip = (reason: string) => report.skipped.push({ item: `post ${post.ref}`, reason });
    const title = importedTitle(post.title);
    if (titleShortened(post.title))
      report.notes.push(
        `post ${post.ref}: title shortened to ${String(POST_TITLE_MAX)} characters`,
      );
    if (present.has(presenceOf(post))) {
      skip("already imported (a post with this title and creation time exists)");
      continue;
    }
    // Bounded before the links are read: the rewrite below cannot shrink a body by half.
    if (post.markdown.length > 2 * POST_DESCRIPTION_MAX) {
      skip(
        `its body is ${String(post.markdown.length)} characters as Markdown; posts may have ${String(POST_DESCRIPTION_MAX)}`,
      );
      continue;
    }
    if (post.markdown.trim() === "") {
      skip("it has no body");
      continue;
    }
    // A post whose author row is gone (or unreadable) goes to the export's first author, named.
    const fallback = blog.authors[0];
    const author = authors.get(post.authorRef) ?? fallback;
    if (!author) {
      skip(`its author ${post.authorRef} is not in the export`);
      continue;
    }
    const extra: string[] = [];
    if (author === fallback && !authors.has(post.authorRef))
      extra.push(
        `its author ${post.authorRef || "(none named)"} is not in the export: it was given to ${author.name}`,
      );
    const actor = await accountFor(author.name, author.email, author.bio, author.ref);

    const stored: string[] = [];
    try {
      // Images in the body, each stored once and its address rewritten to this site's.
      const item: ImportedItem = { kind: "post", ref: post.ref };
      const linked = relinked(item, post.markdown);
      const stray = strayLinks(linked);
      if (stray.length > 0)
        extra.push(
          `links to the old site's pages that were not imported lead to paths this site does not have: ${stray.join(", ")}`,
        );
      const { markdown, bodyImages } = await images.localBody(item, post.markdown, linked, stored);
      if (markdown.length > POST_DESCRIPTION_MAX) {
        skip(
          `its body is ${String(markdown.length)} characters as Markdown; posts may have ${String(POST_DESCRIPTION_MAX)}`,
        );
        await discardImages(deps, stored);
        continue;
      }

      let imageKey: string | undefined;
      if (post.featureImage) {
        imageKey = (await images.storedImage(item, post.featureImage, IMAGE_CREATE_MAX_BYTES))?.key;
      }
      if (!imageKey) {
        imageKey = (await placeholderImage(deps)).key;
        report.notes.push(
          `post ${post.ref}: no feature image${post.featureImage ? " found" : ""}, a plain one was given`,
        );
      }
      stored.push(imageKey);
      const category = await categoryFor(post);
      const fitted = fittedTags(post.tags);

      // Written before the post, as an upload is: the renderer reads their sizes.
      await recordBodyImages(deps.db, bodyImages, actor.id, post.createdAt);
      const body = await bodyFor(deps, actor, markdown, "markdown");
      // Nothing the source hid becomes public here: such a post waits as a draft (decision 019).
      const status = post.hiddenBecause === null ? post.status : "draft";
      const row: Insertable<PostsTable> = {
        id: postIds.get(post.ref) ?? newId(),
        user_id: actor.id,
        title,
        description: markdown,
        category,
        image_key: imageKey,
        image_alt: post.featureImageAlt,
        ...body.columns,
        tags: fitted.tags.join(" "),
        status,
        publish_at: null,
        published_at: status === "published" ? (post.publishedAt ?? post.createdAt) : null,
        created_at: post.createdAt,
        updated_at: post.updatedAt < post.createdAt ? post.createdAt : post.updatedAt,
      };
      const comments: CommentsTable[] = [];
      for (const comment of post.comments) {
        const text = comment.text.trim();
        if (text.length < COMMENT_MIN || text.length > COMMENT_MAX) {
          report.skipped.push({
            item: `a comment by ${comment.authorName} on ${post.ref}`,
            reason: `comments have ${String(COMMENT_MIN)} to ${String(COMMENT_MAX)} characters; it has ${String(text.length)}`,
          });
          continue;
        }
        // The address typed into a comment form proves nothing: a placeholder of the name, never
        // the account of whoever has that address here (an admin's, say).
        const commenter = await accountFor(
          comment.authorName,
          "",
          "",
          `comment:${comment.authorName}`,
          true,
        );
        comments.push({
          id: newId(),
          post_id: row.id,
          user_id: commenter.id,
          parent_id: null,
          text,
          created_at: comment.createdAt,
          updated_at: comment.createdAt,
        });
      }
      await deps.db.transaction().execute(async (trx) => {
        await trx.insertInto("posts").values(row).execute();
        if (fitted.tags.length > 0)
          await trx
            .insertInto("post_tags")
            .values(fitted.tags.map((tag) => ({ post_id: row.id, tag })))
            .execute();
        await body.claimImages(trx, row);
        if (comments.length > 0) await trx.insertInto("comments").values(comments).execute();
      });
      report.imported.posts += 1;
      writtenIds.add(row.id);
      written.add(`post ${post.ref}`);
      present.add(presenceOf(post));
      for (const note of [...extra, ...post.notes, ...fitted.notes])
        report.notes.push(`post ${post.ref}: ${note}`);
      if (post.hiddenBecause !== null)
        report.drafts.push({ kind: "post", ref: post.ref, title, reason: post.hiddenBecause });
      report.imported.comments += comments.length;
      report.imported.images += stored.length;
    } catch (error) {
      if (stored.length > 0)
        await deps.db.deleteFrom("body_images").where("image_key", "in", stored).execute();
      await discardImages(deps, stored);
      if (error instanceof DomainError) {
        skip(error.message);
        continue;
      }
      throw error;
    }
  }
  options.progress?.done();
  const commenters = commentersNote();
  if (commenters !== undefined) report.notes.push(commenters);
  // A link led to a post that was then not imported (refused, or without a body) leads nowhere.
  for (const [from, targets] of linkedRefs) {
    if (!written.has(from)) continue;
    for (const target of targets) {
      const id = postIds.get(target) ?? "";
      if (!writtenIds.has(id) && !existingIds.has(id))
        report.notes.push(
          `${from}: its link to post ${target} leads nowhere (${target} was not imported)`,
        );
    }
  }
  if (blog.navigation)
    report.navigation = await importNavigation(deps, blog, report, {
      pages: pagePlan.links,
      posts: (slug) => {
        const id = postIds.get(slug);
        return id !== undefined && (writtenIds.has(id) || existingIds.has(id)) ? id : undefined;
      },
      defaults: options.siteDefaults,
    });
  return report;
}

/** The first words of an old site's paths that are not posts: taxonomies, authors, files. */
const NOT_POSTS = new Set(["tag", "category", "author", "page", "feed", "wp-content", "content"]);

/** The category a post is filed under here: its own, made to fit, or the default. */
function categoryTitle(post: ForeignPost) {
  let title = (post.category ?? "").trim().replace(/\s+/g, " ");
  if (title.length < CATEGORY_TITLE_MIN) title = DEFAULT_CATEGORY;
  if (title.length > CATEGORY_TITLE_MAX) title = title.slice(0, CATEGORY_TITLE_MAX).trim();
  return title;
}

/** The post's tags as this site takes them (at most TAGS_MAX), and what was left out, in words. */
function fittedTags(names: readonly string[]) {
  const kept: string[] = [];
  const unfit: string[] = [];
  const over: string[] = [];
  for (const name of names) {
    const tag = tagFrom(name);
    if (tag === undefined) unfit.push(name);
    else if (kept.includes(tag)) continue;
    else if (kept.length < TAGS_MAX) kept.push(tag);
    else over.push(name);
  }
  const notes: string[] = [];
  if (over.length > 0)
    notes.push(
      `${String(over.length)} tag(s) not kept (a post has at most ${String(TAGS_MAX)} here): ${over.join(", ")}`,
    );
  if (unfit.length > 0)
    notes.push(
      `tag(s) not kept (a tag has ${String(TAG_MIN)} to ${String(TAG_MAX)} letters or digits): ${unfit.map((name) => JSON.stringify(name)).join(", ")}`,
    );
  return { tags: kept, notes };
}

/** A plain image for a post that had no feature image: each post gets its own copy. */
async function placeholderImage(deps: CoreDeps) {
  const bytes = await sharp({
    create: { width: 1200, height: 630, channels: 3, background: { r: 226, g: 232, b: 240 } },
  })
    .png()
    .toBuffer();
  const encoded = await encodeImage(bytes);
  return { key: await putImage(deps.storage, encoded), encoded };
}
