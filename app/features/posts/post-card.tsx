import type { ReactNode } from "react";
import { Link } from "react-router";
import type { PostSummary } from "../../../core/posts/presenters.js";
import { imageSources } from "../../ui/format.js";
import { Byline } from "./byline.js";
import { TagList } from "./tag-list.js";
import { categoryPath, postPath } from "../../../contract/page-paths.js";

/**
 * What a card is given of a post: its summary without the likes and comments counts, which no
 * card shows. Left out of a list page's data too, a like or a comment then changes no list page,
 * only its post's (decision 021). Nor the fields only its own page's head reads.
 */
export type NotOnCards = "likesCount" | "commentsCount" | "metaDescription" | "canonicalUrl";
export type CardPost = Omit<PostSummary, NotOnCards>;

/** `posts` as their cards are given them (`CardPost`), whatever else each carries (a snippet). */
export function cardsOf<T extends CardPost>(
  posts: readonly (T & Pick<PostSummary, NotOnCards>)[],
): Omit<T, NotOnCards>[] {
  return posts.map((post) => {
    const card: Omit<T, NotOnCards> & Partial<PostSummary> = { ...post };
    delete card.likesCount;
    delete card.commentsCount;
    delete card.metaDescription;
    delete card.canonicalUrl;
    return card;
  });
}

/** The post card of SPEC.md 2. The first cards of a page load eagerly; the rest when scrolled to. */
/** What a page adds to each card for its viewer (a signed-in reader's Save button). */
export type CardActions = ((post: CardPost) => ReactNode) | undefined;

export function PostCard({
  post,
  eager = false,
  description,
  actions,
}: {
  post: CardPost;
  eager?: boolean;
  /** What the card says of the post in place of its excerpt (a search's snippet). */
  description?: ReactNode;
  actions?: CardActions;
}) {
  const readMore = (
    <Link to={postPath(post._id)} className="read-more">
      Read More<span className="visually-hidden">: {post.title}</span>
    </Link>
  );
  return (
    <article className="post-card">
      {/* A draft saved without a cover (its author's card alone) has no image. */}
      {post.image ? <CardImage post={post} url={post.image.url} eager={eager} /> : null}
      <div className="post-card-body">
        <Link to={categoryPath(post.category)} className="tag">
          {post.category}
        </Link>
        <h3 className="post-card-title">
          <Link to={postPath(post._id)}>{post.title}</Link>
        </h3>
        <Byline user={post.user} date={post.publishedAt ?? post.createdAt}>
          <span>{post.readingMinutes} min read</span>
        </Byline>
        <p className="post-card-description">{description ?? post.excerpt}</p>
        <TagList tags={post.tags} />
        {actions ? (
          <div className="post-card-footer">
            {readMore}
            {actions(post)}
          </div>
        ) : (
          readMore
        )}
      </div>
    </article>
  );
}

/** A card's cover, a link to the post that screen readers skip (the title link says the same). */
function CardImage({
  post,
  url,
  eager,
}: {
  post: Pick<CardPost, "_id" | "title" | "imageAlt">;
  url: string;
  eager: boolean;
}) {
  const image = imageSources(url);
  return (
    <Link to={postPath(post._id)} className="post-card-image" tabIndex={-1} aria-hidden="true">
      <img
        src={image.src}
        srcSet={image.srcSet}
        sizes="(min-width: 1400px) 400px, (min-width: 992px) 50vw, 100vw"
        width="1200"
        height="675"
        alt={post.imageAlt ?? post.title}
        loading={eager ? "eager" : "lazy"}
        // The first cards hold the largest paint of the page: fetched before the scripts.
        fetchPriority={eager ? "high" : "auto"}
        decoding="async"
      />
    </Link>
  );
}

export function PostGrid({ posts, actions }: { posts: CardPost[]; actions?: CardActions }) {
  return (
    <div className="post-grid">
      {posts.map((post, index) => (
        <PostCard key={post._id} post={post} eager={index < 2} actions={actions} />
      ))}
    </div>
  );
}

export function NoPosts() {
  return (
    <div className="empty">
      {/* Coloured by styles.css (.empty svg rect), from the theme's tokens. */}
      <svg viewBox="0 0 120 90" width="160" height="120" aria-hidden="true">
        <rect x="10" y="10" width="100" height="70" rx="8" />
        <rect x="22" y="24" width="50" height="8" rx="4" />
        <rect x="22" y="40" width="76" height="6" rx="3" />
        <rect x="22" y="52" width="64" height="6" rx="3" />
      </svg>
      <h2>No Posts Were Found</h2>
    </div>
  );
}
