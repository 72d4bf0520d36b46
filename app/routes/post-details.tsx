import { useRef, type ReactNode } from "react";
import { data, Link, useActionData, useRouteLoaderData } from "react-router";
import { canDeletePost, canEditPost } from "../../core/posts/policies.js";
import { listCommentThreads } from "../../core/comments/threads.js";
import { getPost, likersOf } from "../../core/posts/posts-service.js";
import { DomainError } from "../../core/shared/errors.js";
import { getProfileBasics } from "../../core/users/users-service.js";
import { seriesPartsOf } from "../../core/series/series-service.js";
import { SeriesBox, SeriesEnd } from "../features/series/series-box.js";
import seriesStyles from "../features/series/series.css?url";
import { pageMeta } from "../meta.js";
import { imageSources } from "../ui/format.js";
import { CommentThreads } from "../features/comments/comment-threads.js";
import { ReportMenu } from "../features/reports/report-menu.js";
import { Byline, useAuthorLink } from "../features/posts/byline.js";
import { Pager, pageParam } from "../features/posts/pager.js";
import { postAction } from "../features/posts/post-action.server.js";
import { PostStatusNotice } from "../features/posts/publish-controls.js";
import { TagList } from "../features/posts/tag-list.js";
import { useCodeCopyButtons } from "../features/posts/code-copy.js";
import {
  CommentForm,
  CommentTools,
  LikeButton,
  Likes,
  OwnerTools,
  ShareMenu,
} from "../features/posts/post-interactions.js";
import { Island } from "../features/viewer/islands.js";
import { isMember, livePart, viewerPart } from "../features/viewer/viewer-part.server.js";
import type { PostStatus } from "../../contract/content.js";
import { SocialLinks } from "../features/users/social-links.js";
import { BookmarkButton } from "../features/reading/bookmark-button.js";
import { FollowButton } from "../features/reading/follow-button.js";
import { PostStatsLink } from "../features/stats/stats-parts.js";
import { readerStateOfPost } from "../../core/bookmarks/bookmarks-service.js";
import { ConfirmDelete } from "../ui/confirm-delete.js";
import { CommentIcon } from "../ui/icons.js";
import { useToastOn } from "../ui/toasts.js";
import postBodyStyles from "../features/posts/post-body.css?url";
import publishingStyles from "../features/posts/publishing.css?url";
import commentStyles from "../features/comments/comments.css?url";
import type { loader as rootLoader } from "../root.js";
import { SubscribeForm } from "../features/newsletter/subscribe-form.js";
import type { Route } from "./+types/post-details";
import { categoryPath, postPath } from "../../contract/page-paths.js";

export const links: Route.LinksFunction = () => [
  { rel: "stylesheet", href: postBodyStyles },
  { rel: "stylesheet", href: publishingStyles },
  { rel: "stylesheet", href: commentStyles },
  { rel: "stylesheet", href: seriesStyles },
];

/** Comment threads shown per page of a post; the newest page is shown first. */
const THREADS_PER_PAGE = 50;

/** This route's id, naming its viewer part (decision 021). */
const ROUTE = "routes/post-details";

/**
 * What a like or a comment changes on the page (decision 029), the same for every reader, in two
 * live parts: its likes, read again on any change of the post's likes or comments, and its
 * comments, read again only when they change (a like leaves them, and their islands' HTML, as
 * they were).
 */
interface PostLikesData {
  likes: PostDetail["likes"];
  likesCount: number;
}

interface PostCommentsData {
  commentsCount: number;
  comments: Awaited<ReturnType<typeof listCommentThreads>>;
}

type PostDetail = Awaited<ReturnType<typeof getPost>>;

/** The names of this route's live parts. */
const LIKES = `likes:${ROUTE}`;
const COMMENTS = `comments:${ROUTE}`;

/** The post page's part for a signed-in viewer: what they did and what they may do here. */
interface PostViewerData {
  /** Who they are: their likes and their own comments' tools are found by it. */
  userId: string;
  saved: boolean;
  /** Whether they follow the author; undefined on their own post (no Follow button). */
  following: boolean | undefined;
  /** The edit form's fields (the Markdown too): for the author alone. */
  editable:
    | {
        title: string;
        category: string;
        description: string;
        imageAlt: string | null;
        status: PostStatus;
        publishAt: string | null | undefined;
        newsletter: "send" | "none" | undefined;
      }
    | undefined;
  canDelete: boolean;
}

export async function loader({ context, params, request }: Route.LoaderArgs) {
  try {
    const { deps } = context;
    const actor = context.viewer?.actor;
    // The post first: one a shell may not show (a draft, for every member) is refused before the
    // rest is read, and the page is then rendered whole for its viewer (decision 021).
    // A shell shows no likers (they are the live part's): it reads none.
    const post = await getPost(
      deps,
      actor,
      params.id,
      context.shell ? ["comments", "likers"] : ["comments"],
    );
    const commentsPage = pageParam(request.url, "comments");
    const likesOf = (likes: PostDetail["likes"]) =>
      Promise.resolve<PostLikesData>({ likes, likesCount: likes.length });
    const likes = await livePart(context, {
      name: LIKES,
      keptBy: "post",
      read: async () => likesOf(await likersOf(deps, post._id)),
      readNow: () => likesOf(post.likes),
    });
    const comments = await livePart(context, {
      name: COMMENTS,
      keptBy: "comments",
      read: async (): Promise<PostCommentsData> => {
        const threads = await listCommentThreads(deps, post._id, {
          page: commentsPage,
          perPage: THREADS_PER_PAGE,
        });
        return { commentsCount: threads.commentsCount, comments: threads };
      },
    });
    // The author box after the post: what their profile says of them, never their e-mail.
    const { bio, socialMedia } = await getProfileBasics(deps, undefined, post.user._id, {
      withPosts: false,
    });
    // Its series' parts as readers see them, the same for every reader (decision 032).
    const seriesParts = await seriesPartsOf(deps, post);
    const owned = { user_id: post.user._id };
    // Readers get the rendered body only; its Markdown goes to the author's edit form alone. Its
    // likes and counts are the live part's, so a like changes nothing else in the page's data.
    const { description, ...rest } = post;
    const shown: Omit<typeof rest, "likes" | "likesCount" | "commentsCount"> & Partial<PostDetail> =
      { ...rest };
    delete shown.likes;
    delete shown.likesCount;
    delete shown.commentsCount;
    const viewer = await viewerPart(
      context,
      ROUTE,
      async ({ actor: reader }): Promise<PostViewerData> => {
        const own = reader.id === post.user._id;
        // The signed-in reader's Saved and Following state (decision 016).
        const state = await readerStateOfPost(deps, reader, {
          id: post._id,
          authorId: post.user._id,
        });
        return {
          userId: reader.id,
          saved: state.saved,
          following: own ? undefined : state.following,
          editable: canEditPost(reader, owned)
            ? {
                title: post.title,
                category: post.category,
                description,
                imageAlt: post.imageAlt,
                status: post.status,
                publishAt: post.publishAt,
                newsletter: post.newsletter,
              }
            : undefined,
          canDelete: canDeletePost(reader, owned),
        };
      },
    );
    return {
      post: shown,
      author: { bio, socialMedia },
      seriesParts,
      site: context.site,
      member: isMember(context),
      viewer,
      live: { likes, comments },
    };
  } catch (error) {
    if (error instanceof DomainError && error.kind === "not_found") {
      // The 404 page then says the post may have been removed.
      throw data("post", { status: 404 });
    }
    throw error;
  }
}

export const action = ({ request, context, params }: Route.ActionArgs) =>
  postAction(request, context, params.id);

export const meta = ({ loaderData }: Route.MetaArgs) => {
  const { post, site } = loaderData;
  const url = post.canonicalUrl ?? `${site.publicUrl}${postPath(post._id)}`;
  // The writer's summary for search engines and share cards, or the body's first words.
  const description = post.metaDescription ?? post.excerpt;
  return [
    ...pageMeta(site, {
      title: post.title,
      description,
      path: postPath(post._id),
      canonicalUrl: post.canonicalUrl,
    }),
    { property: "og:type", content: "article" },
    { property: "og:title", content: post.title },
    { property: "og:description", content: description },
    { property: "og:url", content: url },
    ...(post.image ? [{ property: "og:image", content: post.image.url }] : []),
    { property: "og:site_name", content: site.title },
    { property: "article:published_time", content: post.publishedAt ?? post.createdAt },
    { name: "twitter:card", content: post.image ? "summary_large_image" : "summary" },
    { name: "twitter:title", content: post.title },
    { name: "twitter:description", content: description },
    ...(post.image ? [{ name: "twitter:image", content: post.image.url }] : []),
  ];
};

export default function PostDetails({ loaderData }: Route.ComponentProps) {
  const { post, author, site, live, member, viewer, seriesParts } = loaderData;
  // The edit form's choices: the categories the root loads for the header.
  const categories = useRouteLoaderData<typeof rootLoader>("root")?.categories ?? [];
  const result = useActionData<typeof action>();
  useToastOn(result);
  const authorLink = useAuthorLink(post.user);
  const image = post.image ? imageSources(post.image.url) : undefined;
  const bodyRef = useRef<HTMLDivElement>(null);
  useCodeCopyButtons(bodyRef, post.html);
  // Its readers' numbers, for those who may see them (its author and admins: their tools here).
  const statsLink = post.status === "published" ? <PostStatsLink postId={post._id} /> : null;
  /** A part of the page that is the viewer's own (decision 021). */
  const island = (render: (data: PostViewerData | undefined) => ReactNode) => (
    <Island<PostViewerData> route={ROUTE} part={viewer}>
      {render}
    </Island>
  );
  /** A part that shows what likes change, the same for everyone (decision 029). */
  const likesIsland = (render: (data: PostLikesData) => ReactNode) => (
    <Island<PostLikesData> route={LIKES} part={live.likes} live>
      {(now) => (now ? render(now) : null)}
    </Island>
  );
  /** A part that shows what comments change, the same for everyone. */
  const commentsIsland = (render: (data: PostCommentsData) => ReactNode) => (
    <Island<PostCommentsData> route={COMMENTS} part={live.comments} live>
      {(now) => (now ? render(now) : null)}
    </Island>
  );
  return (
    <article className="post">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <ol>
          <li>
            <Link to="/">Home</Link>
          </li>
          <li>
            <Link to={categoryPath(post.category)}>{post.category}</Link>
          </li>
          <li aria-current="page">{post.title}</li>
        </ol>
      </nav>
      <header className="post-header">
        <Link to={categoryPath(post.category)} className="tag">
          {post.category}
        </Link>
        <h1>{post.title}</h1>
        <Byline user={post.user} date={post.publishedAt ?? post.createdAt} photoSize={32} withTime>
          <span>{post.readingMinutes} min read</span>
          {commentsIsland(({ commentsCount }) => (
            <span>
              <CommentIcon /> {commentsCount} {commentsCount === 1 ? "comment" : "comments"}
            </span>
          ))}
        </Byline>
        <TagList tags={post.tags} />
        <PostStatusNotice status={post.status} publishAt={post.publishAt} />
      </header>
      {/* A draft saved without a cover has none yet (its owner's tools offer to add one). */}
      {image ? (
        <img
          className="post-image"
          src={image.src}
          srcSet={image.srcSet}
          sizes="(min-width: 900px) 860px, 100vw"
          width="1200"
          height="675"
          alt={post.imageAlt ?? post.title}
          fetchPriority="high"
        />
      ) : null}
      {island((mine) =>
        mine?.editable ? (
          <OwnerTools post={mine.editable} categories={categories} result={result}>
            {statsLink}
          </OwnerTools>
        ) : mine?.canDelete ? (
          <div className="owner-tools">
            {statsLink}
            <ConfirmDelete
              what="post"
              label="Delete Post"
              fields={{ intent: "delete-post" }}
              className="button button-small button-danger"
            />
          </div>
        ) : null,
      )}
      <SeriesBox postId={post._id} series={post.series} parts={seriesParts} />
      <div
        ref={bodyRef}
        className="post-body"
        // The one place a page inserts HTML: the body as the server rendered and sanitized it when
        // it was written (core/posts/body.ts: an allow-list of tags and attributes, no raw HTML
        // from the writer, no script, no style). Nothing else may ever be passed here.
        dangerouslySetInnerHTML={{ __html: post.html }}
      />
      <SeriesEnd postId={post._id} parts={seriesParts} />
      <aside className="author-box" aria-label="About the author">
        <img
          src={post.user.profilePhoto.url}
          alt=""
          width="64"
          height="64"
          className="avatar"
          loading="lazy"
        />
        <div>
          <div className="follow-row">
            <p className="author-name">
              Written by <Link to={authorLink}>{post.user.username}</Link>
            </p>
            {island((mine) =>
              mine?.following === undefined ? null : (
                <FollowButton
                  userId={post.user._id}
                  username={post.user.username}
                  following={mine.following}
                />
              ),
            )}
          </div>
          {author.bio ? <p className="muted">{author.bio}</p> : null}
          <SocialLinks links={author.socialMedia} />
        </div>
      </aside>
      {post.status === "published" ? (
        <SubscribeForm
          id="subscribe-post"
          scope={{ authorId: post.user._id, name: post.user.username }}
          choices={[{ authorId: post.user._id, name: post.user.username }, { name: site.title }]}
        />
      ) : null}
      {/* Likes, sharing and comments are for readers: a draft or a scheduled post has none yet
          (its page is its author's and admins'), and shows what they need instead. */}
      {post.status === "published" ? (
        <>
          <section className="likes" aria-label="Likes">
            {/* One live island with the reader's own ones inside: two islands side by side
                would be two texts to React, which it keeps apart with a comment. */}
            {likesIsland(({ likes, likesCount }) => (
              <>
                <Likes
                  likes={likes}
                  count={likesCount}
                  toggle={
                    member
                      ? island((mine) => (
                          <LikeButton liked={likes.some((user) => user._id === mine?.userId)} />
                        ))
                      : null
                  }
                />
                {member
                  ? island((mine) => (
                      <BookmarkButton
                        postId={post._id}
                        title={post.title}
                        saved={mine?.saved ?? false}
                      />
                    ))
                  : null}
                {member ? (
                  <ShareMenu url={`${site.publicUrl}${postPath(post._id)}`} title={post.title} />
                ) : null}
                {member
                  ? island((mine) =>
                      mine?.following === undefined ? null : (
                        <ReportMenu target={{ postId: post._id }} what="post" />
                      ),
                    )
                  : null}
              </>
            ))}
          </section>
          <section className="comments" aria-labelledby="comments-title">
            <h2 id="comments-title">Leave a Reply</h2>
            {member ? (
              <CommentForm result={result} />
            ) : (
              <p>
                <Link to="/login">Log in</Link> to leave a comment.
              </p>
            )}
            {commentsIsland(({ comments, commentsCount }) =>
              comments.threads.length === 0 ? (
                <p className="muted">No Comments Yet! Be the first one.</p>
              ) : (
                <>
                  <h3 className="comment-count">
                    {commentsCount} {commentsCount === 1 ? "Comment" : "Comments"}
                  </h3>
                  <CommentThreads
                    threads={comments.threads}
                    signedIn={member}
                    result={result}
                    ownTools={(comment) =>
                      island((mine) =>
                        mine?.userId === comment.user._id ? (
                          <CommentTools
                            commentId={comment._id}
                            text={comment.text}
                            result={result}
                          />
                        ) : null,
                      )
                    }
                    reportMenu={(comment) =>
                      member
                        ? island((mine) =>
                            mine === undefined || mine.userId === comment.user._id ? null : (
                              <ReportMenu target={{ commentId: comment._id }} what="comment" />
                            ),
                          )
                        : null
                    }
                  />
                  <Pager
                    page={comments.page}
                    pages={comments.pages}
                    path={postPath(post._id)}
                    param="comments"
                    label="Comment pages"
                    defaultPage={comments.pages}
                    hash="#comments-title"
                  />
                </>
              ),
            )}
          </section>
        </>
      ) : null}
    </article>
  );
}
