// The static pages' and series' tables (decision 032), apart from schema.ts to keep each file
// readable.

export type PageStatus = "draft" | "published";

/** A static page (DESIGN.md 11, "Pages and series"; decision 032), written by admins. */
export interface PagesTable {
  id: string;
  /** Its address, `/pages/<slug>`: lowercase letters, digits and single hyphens. */
  slug: string;
  /** The admin who wrote it; null once their account is deleted. */
  author_id: string | null;
  title: string;
  /** The Markdown source, as a post's `description`. */
  description: string;
  html: string;
  excerpt: string;
  meta_description: string | null;
  status: PageStatus;
  /** When it was first published; null while a draft never published. */
  published_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A slug a page had before a rename: its old address redirects to the page. */
export interface PageSlugsTable {
  slug: string;
  page_id: string;
  created_at: string;
}

/** A page's title and body before an edit changed them. */
export interface PageRevisionsTable {
  id: string;
  page_id: string;
  editor_id: string | null;
  title: string;
  description: string;
  created_at: string;
}

/** A writer's series of their own posts (DESIGN.md 11); its posts name it (`posts.series_id`). */
export interface SeriesTable {
  id: string;
  user_id: string;
  title: string;
  /** Plain text, '' for none. */
  description: string;
  created_at: string;
  updated_at: string;
}
