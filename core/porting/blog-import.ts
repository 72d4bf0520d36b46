import { withLineFeeds } from "../../contract/validation.js";
import { createHash, randomBytes } from "node:crypto";
import { readFile, realpath } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { EMAIL_PATTERN } from "../../contract/auth.js";
import {
  BIO_MAX,
  BODY_IMAGE_MAX_BYTES,
  CATEGORY_TITLE_MAX,
  CATEGORY_TITLE_MIN,
  COMMENT_MAX,
  COMMENT_MIN,
  EMAIL_MAX,
  IMAGE_CREATE_MAX_BYTES,
  POST_DESCRIPTION_MAX,
  POST_TITLE_MAX,
  TAG_MAX,
  TAG_MIN,
  TAGS_MAX,
  USERNAME_MAX,
} from "../../contract/limits.js";
import { isTag, normalizeTag } from "../../contract/content.js";
import type { CommentsTable, PostsTable } from "../../db/schema.js";
import type { Insertable } from "kysely";
import { createUser, emailKeyOf } from "../auth/auth-service.js";
import type { CoreDeps } from "../deps.js";
import { discardImages, encodeImage, imageUrl, putImage } from "../media/images.js";
import { bodyFor } from "../posts/posts-service.js";
import { DomainError } from "../shared/errors.js";
import { newId } from "../shared/ids.js";
import { actorOf, type Actor } from "../users/policies.js";
import type { ForeignBlog, ForeignPost } from "./foreign.js";
import type { Progress } from "./progress.js";
import { postPath } from "../../contract/page-paths.js";

export interface BlogImportReport {
  imported: {
    authors: number;
    categories: number;
    posts: number;
    comments: number;
    images: number;
  };
  /** Accounts that existed already (by e-mail address) and got the posts. */
  existingAuthors: number;
  skipped: { item: string; reason: string }[];
  /** Posts the source did not show to everyone (password-protected, private...), kept as drafts. */
  drafts: { post: string; title: string; reason: string }[];
  /** Images the body or feature named that the folder does not have (or that are not images). */
  missingImages: { post: string; url: string; reason: string }[];
  /** Changes made to fit this site's rules (a title shortened, a placeholder image...). */
  notes: string[];
}

/** Where imported posts without a category are filed (WordPress's own name for it). */
export const DEFAULT_CATEGORY = "Uncategorized";
const PLACEHOLDER_DOMAIN = "imported.invalid";

/** Markdown links and images: `[text](url "title")`, `![alt](url)`. */
const MARKDOWN_LINK = /(!?)\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(\s+"[^"]*")?\s*\)/g;
/** Markdown images: `![alt](url "title")`. */
const MARKDOWN_IMAGE = /!\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(\s+"[^"]*")?\s*\)/g;

/**
 * Adds a blog from another platform to this site (decision 019): authors become accounts that
 * must reset their password, categories are made as needed, each post (with its images and
 * comments) is written in one transaction through the same renderer and limits as a new post.
 * A post already imported (same title and creation time) is skipped, so a second run adds nothing.
 */
export async function importBlog(
  deps: CoreDeps,
  blog: ForeignBlog,
  options: { imagesDir?: string | undefined; progress?: Progress | undefined },
): Promise<BlogImportReport> {
  const report: BlogImportReport = {
    imported: { authors: 0, categories: 0, posts: 0, comments: 0, images: 0 },
    existingAuthors: 0,
    skipped: [...blog.skipped],
    drafts: [],
    missingImages: [],
    notes: [],
  };
  const imagesDir = options.imagesDir ? await realpath(options.imagesDir) : undefined;
  const authors = new Map(blog.authors.map((author) => [author.ref, author]));
  const accounts = new Map<string, Actor>();
  let commenters = 0;

  /**
   * The account of an address, made (unverified, with a password nobody knows) when new; a
   * commenter's is always a placeholder of their name (`commenter`: no note of its own).
   */
  async function accountFor(
    name: string,
    email: string,
    bio: string,
    ref: string,
    commenter = false,
  ) {
    const usable = EMAIL_PATTERN.test(email) && email.length <= EMAIL_MAX;
    const username = usernameFrom(name);
    const address = usable
      ? email
      : `${username.toLowerCase()}-${shortHash(ref)}@${PLACEHOLDER_DOMAIN}`;
    const key = emailKeyOf(address);
    const known = accounts.get(key);
    if (known) return known;
    const existing = await deps.db
      .selectFrom("users")
      .selectAll()
      .where("email_key", "=", key)
      .executeTakeFirst();
    if (existing) {
      if (!address.endsWith(`@${PLACEHOLDER_DOMAIN}`)) report.existingAuthors += 1;
      const actor = actorOf(existing);
      accounts.set(key, actor);
      return actor;
    }
    const user = await createUser(deps, {
      username,
      email: address,
      // Nobody ever knows it: the account opens through "Reset Password" (decision 019).
      password: `${randomBytes(24).toString("base64url")}aA1!`,
      isVerified: false,
    });
    if (bio.trim() !== "")
      await deps.db
        .updateTable("users")
        .set({ bio: bio.trim().slice(0, BIO_MAX) })
        .where("id", "=", user.id)
        .execute();
    if (commenter) commenters += 1;
    else if (!usable)
      report.notes.push(
        `${name}: no usable e-mail address in the export, so the account has ${address} until an admin changes it`,
      );
    report.imported.authors += 1;
    const actor = actorOf(user);
    accounts.set(key, actor);
    return actor;
  }

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

  /** Where in the images folder the source keeps the image at this address, if it says. */
  function sourceImagePath(url: string) {
    const bare = url.split(/[?#]/)[0] ?? "";
    const known = blog.imagePaths?.get(bare);
    if (known !== undefined) return known;
    // A resized copy sits beside its original: `photo-300x200.jpg` of `photo.jpg`.
    const original = blog.imagePaths?.get(bare.replace(RESIZED, "$1"));
    const name = bare.slice(bare.lastIndexOf("/") + 1);
    if (original !== undefined && RESIZED.test(name))
      return path.posix.join(path.posix.dirname(original), name);
    return relativeImagePath(url);
  }

  /** The file an image URL of the source names inside the images folder, if any. */
  async function fileOf(url: string): Promise<{ file?: string; reason: string }> {
    if (!imagesDir) return { reason: "no --images folder was given" };
    const relative = sourceImagePath(url);
    if (relative === undefined) return { reason: "not an image of the blog's own" };
    const candidates = [
      relative,
      // Ghost's resized copies, and WordPress's (`photo-300x200.jpg` of `photo.jpg`).
      relative.replace(/^size\/w\d+\//, ""),
      relative.replace(RESIZED, "$1"),
    ];
    for (const candidate of candidates) {
      const file = path.resolve(imagesDir, candidate);
      if (!file.startsWith(`${imagesDir}${path.sep}`)) return { reason: "outside the folder" };
      const found = await realpath(file).catch(() => undefined);
      if (found?.startsWith(`${imagesDir}${path.sep}`)) return { file: found, reason: "" };
    }
    return { reason: "not in the images folder" };
  }

  async function storedImage(post: ForeignPost, url: string, maxBytes: number) {
    const { file, reason } = await fileOf(url);
    if (!file) {
      report.missingImages.push({ post: post.ref, url, reason });
      return undefined;
    }
    const bytes = await readFile(file);
    if (bytes.length > maxBytes) {
      report.missingImages.push({ post: post.ref, url, reason: "larger than uploads may be" });
      return undefined;
    }
    try {
      const encoded = await encodeImage(bytes);
      return { key: await putImage(deps.storage, encoded), encoded };
    } catch (error) {
      const why = error instanceof DomainError ? error.message : "could not be read as an image";
      report.missingImages.push({ post: post.ref, url, reason: why });
      return undefined;
    }
  }

  // Each post's id here, known before any is written: links between them lead here (a slug two
  // posts share leads nowhere in particular and is left as it was). A post imported by an
  // earlier run keeps the id it has.
  const refCounts = new Map<string, number>();
  for (const post of blog.posts) refCounts.set(post.ref, (refCounts.get(post.ref) ?? 0) + 1);
  const postIds = new Map<string, string>();
  const existingIds = new Set<string>();
  /** The posts already here (same title and creation time), by that pair. */
  const present = new Set<string>();
  const presenceOf = (post: ForeignPost) => `${importedTitle(post)}\u0000${post.createdAt}`;
  for (const post of blog.posts) {
    const existing = await deps.db
      .selectFrom("posts")
      .select("id")
      .where("title", "=", importedTitle(post))
      .where("created_at", "=", post.createdAt)
      .executeTakeFirst();
    if (existing) {
      existingIds.add(existing.id);
      present.add(presenceOf(post));
    }
    if (refCounts.get(post.ref) === 1) postIds.set(post.ref, existing?.id ?? newId());
  }
  const writtenIds = new Set<string>();
  /** For each post, the other posts its links were led to. */
  const linkedRefs = new Map<string, Set<string>>();
  const oldSite = blog.siteUrl?.replace(/\/+$/, "");
  /** Links to the old site's posts, now to the same posts here. */
  const relinked = (post: ForeignPost) =>
    post.markdown.replace(
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
        const id = slug === undefined ? undefined : postIds.get(slug);
        if (!id || slug === undefined) return whole;
        linkedRefs.set(post.ref, (linkedRefs.get(post.ref) ?? new Set()).add(slug));
        return `[${label}](${postPath(id)}${String(title)})`;
      },
    );

  options.progress?.start(`${blog.source} posts`, blog.posts.length);
  for (const post of blog.posts) {
    options.progress?.tick();
    const skip = (reason: string) => report.skipped.push({ item: `post ${post.ref}`, reason });
    const title = importedTitle(post);
    if (post.title.trim().replace(/\s+/g, " ").length > POST_TITLE_MAX)
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
      const bodyImages: { key: string; width: number; height: number }[] = [];
      const replacements = new Map<string, string>();
      const elsewhere = new Set<string>();
      for (const match of post.markdown.matchAll(MARKDOWN_IMAGE)) {
        const url = match[2] ?? "";
        if (replacements.has(url) || elsewhere.has(url)) continue;
        if (sourceImagePath(url) === undefined) {
          elsewhere.add(url);
          // Pages show only this site's images (its CSP): another site's stays a link.
          report.missingImages.push({
            post: post.ref,
            url,
            reason: "on another site: shown as a link to it",
          });
          continue;
        }
        const image = await storedImage(post, url, BODY_IMAGE_MAX_BYTES);
        if (!image) continue;
        stored.push(image.key);
        bodyImages.push({
          key: image.key,
          width: image.encoded.width,
          height: image.encoded.height,
        });
        replacements.set(url, imageUrl(deps.storage, image.key, "lg"));
      }
      const linked = relinked(post);
      const stray = [...linked.matchAll(MARKDOWN_LINK)]
        .filter(
          ([, bang, , url = ""]) => bang === "" && /^\/(?!posts\/details\/|uploads\/)/.test(url),
        )
        .map((match) => match[3] ?? "");
      if (stray.length > 0)
        extra.push(
          `links to the old site's pages that were not imported lead to paths this site does not have: ${[...new Set(stray)].join(", ")}`,
        );
      const markdown = withLineFeeds(linked).replace(
        MARKDOWN_IMAGE,
        (whole, alt: string, url: string, title?: string) => {
          const local = replacements.get(url);
          return local ? `![${alt}](${local}${title ?? ""})` : whole;
        },
      );
      if (markdown.length > POST_DESCRIPTION_MAX) {
        skip(
          `its body is ${String(markdown.length)} characters as Markdown; posts may have ${String(POST_DESCRIPTION_MAX)}`,
        );
        await discardImages(deps, stored);
        continue;
      }

      let imageKey: string | undefined;
      if (post.featureImage) {
        imageKey = (await storedImage(post, post.featureImage, IMAGE_CREATE_MAX_BYTES))?.key;
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
      if (bodyImages.length > 0)
        await deps.db
          .insertInto("body_images")
          .values(
            bodyImages.map((image) => ({
              image_key: image.key,
              uploader_id: actor.id,
              post_id: null,
              width: image.width,
              height: image.height,
              created_at: post.createdAt,
              released_at: null,
            })),
          )
          .execute();
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
      present.add(presenceOf(post));
      for (const note of [...extra, ...post.notes, ...fitted.notes])
        report.notes.push(`post ${post.ref}: ${note}`);
      if (post.hiddenBecause !== null)
        report.drafts.push({ post: post.ref, title, reason: post.hiddenBecause });
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
  if (commenters > 0)
    report.notes.push(
      `${String(commenters)} commenter(s) got a placeholder account under their name (@${PLACEHOLDER_DOMAIN}): the address typed into a comment form proves nothing, so no comment went to an account by it`,
    );
  // A link led to a post that was then not imported (refused, or without a body) leads nowhere.
  for (const [from, targets] of linkedRefs) {
    if (!writtenIds.has(postIds.get(from) ?? "")) continue;
    for (const target of targets) {
      const id = postIds.get(target) ?? "";
      if (!writtenIds.has(id) && !existingIds.has(id))
        report.notes.push(
          `post ${from}: its link to post ${target} leads nowhere (${target} was not imported)`,
        );
    }
  }
  return report;
}

/** The first words of an old site's paths that are not posts: taxonomies, authors, files. */
const NOT_POSTS = new Set(["tag", "category", "author", "page", "feed", "wp-content", "content"]);

/** The post's title here: spaces collapsed, "Untitled" for none, cut to the limit with "…". */
function importedTitle(post: ForeignPost) {
  const title = post.title.trim().replace(/\s+/g, " ");
  if (title === "") return "Untitled";
  return title.length > POST_TITLE_MAX ? `${title.slice(0, POST_TITLE_MAX - 1).trimEnd()}…` : title;
}

/** The category a post is filed under here: its own, made to fit, or the default. */
function categoryTitle(post: ForeignPost) {
  let title = (post.category ?? "").trim().replace(/\s+/g, " ");
  if (title.length < CATEGORY_TITLE_MIN) title = DEFAULT_CATEGORY;
  if (title.length > CATEGORY_TITLE_MAX) title = title.slice(0, CATEGORY_TITLE_MAX).trim();
  return title;
}

/** A source's tag name as a tag here (`Edge Case` is `edge-case`); undefined when none can be. */
export function tagFrom(name: string): string | undefined {
  const tag = normalizeTag(name)
    .replace(/[^\p{L}\p{M}\p{N}]+/gu, "-")
    .replace(/^-+|-+$/g, "");
  return isTag(tag) ? tag : undefined;
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

/** WordPress's name for a resized copy of an upload: `photo-300x200.jpg`. */
const RESIZED = /-\d+x\d+(\.\w+)$/;

/**
 * The path inside the images folder that a source's image URL names: after `/content/images/`
 * (Ghost, also as `__GHOST_URL__/content/images/...`) or `/wp-content/uploads/` (WordPress).
 */
export function relativeImagePath(url: string): string | undefined {
  const bare = url.split(/[?#]/)[0] ?? "";
  const match = /(?:^|\/)(?:content\/images|wp-content\/uploads)\/(.+)$/.exec(bare);
  if (!match?.[1]) return undefined;
  try {
    const relative = decodeURIComponent(match[1]);
    return relative.split("/").includes("..") ? undefined : relative;
  } catch {
    return undefined;
  }
}

function usernameFrom(name: string) {
  const letters = name
    .normalize("NFKD")
    .replace(/[^a-zA-Z0-9]/g, "")
    .slice(0, USERNAME_MAX);
  return letters === "" ? "author" : letters;
}

const shortHash = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 8);

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
