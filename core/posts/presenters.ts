import type { PresentedComment } from "../comments/presenters.js";
import type { CoreDeps } from "../deps.js";
import { imageUrl } from "../media/images.js";
import { presentPublicUser, type PublicUser } from "../users/presenters.js";
import type { PostSummaryRow } from "./queries.js";

type Presenting = Pick<CoreDeps, "storage" | "site">;

/** Tags as `posts.tags` and revisions store them (lowercase, space-separated) read back. */
export const tagsOf = (stored: string) => (stored === "" ? [] : stored.split(" "));

export function presentPostSummary(deps: Presenting, row: PostSummaryRow) {
  return {
    _id: row.id,
    id: row.id,
    title: row.title,
    description: row.description,
    excerpt: row.excerpt,
    readingMinutes: row.reading_minutes,
    category: row.category,
    /** Null for a draft saved without a cover (publishing requires one). */
    image: row.image_key === null ? null : { url: imageUrl(deps.storage, row.image_key, "lg") },
    /** The writer's description of the image, or null (readers then get the title). */
    imageAlt: row.image_alt,
    user: presentPublicUser(deps, {
      id: row.user_id,
      username: row.author_username,
      photo_key: row.author_photo_key,
    }),
    /** Lowercase, in the writer's order. */
    tags: tagsOf(row.tags),
    /** What search engines and share cards show; null: the excerpt. */
    metaDescription: row.meta_description,
    /** Where the post first appeared, when elsewhere; null: here. */
    canonicalUrl: row.canonical_url,
    likesCount: Number(row.likes_count ?? 0),
    commentsCount: Number(row.comments_count ?? 0),
    status: row.status,
    publishedAt: row.published_at,
    // Only while it is scheduled (the API's contract names status and publishedAt; a scheduled
    // post's time is its author's to see and change).
    ...(row.status === "scheduled" ? { publishAt: row.publish_at } : {}),
    // Until it is out, whether publishing mails it (decision 028): its author's choice to change.
    ...(row.status === "published" ? {} : { newsletter: row.newsletter }),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    /** Its series and its place there as readers number it (decision 032); null: none. */
    series: seriesPlaceOf(row),
  };
}

/** A post's series as its summary row reads it: its title, and its place among what readers see. */
function seriesPlaceOf(row: PostSummaryRow) {
  if (row.series_id === null || row.series_title === null) return null;
  return {
    _id: row.series_id,
    title: row.series_title,
    position: Number(row.series_position ?? 1),
    total: Number(row.series_total ?? 1),
  };
}

export type PostSummary = ReturnType<typeof presentPostSummary>;

/** A post with its likers and comments, and its body's sanitized HTML (only here, not in lists). */
export function presentPostDetail(
  deps: Presenting,
  row: PostSummaryRow & { html: string },
  likes: PublicUser[],
  comments: PresentedComment[],
) {
  return { ...presentPostSummary(deps, row), html: row.html, likes, comments };
}
