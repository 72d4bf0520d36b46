import { sql } from "kysely";
import { compiledOnce } from "../../db/compiled-once.js";
import type { Database } from "../../db/schema.js";
import type { CoreDeps } from "../deps.js";
import { presentComment, type PresentedComment } from "./presenters.js";
import { selectComments } from "./queries.js";

/**
 * A conversation under a post: its first comment (undefined once deleted: its place then reads
 * "This comment was deleted") and the replies, oldest first.
 */
export interface CommentThread {
  id: string;
  comment: PresentedComment | undefined;
  replies: PresentedComment[];
}

/** One page of threads, oldest first; pages count from 1, the last by default. */
export interface ThreadsPage {
  page?: number | undefined;
  perPage: number;
}

const threadOf = sql<string>`coalesce(comments.parent_id, comments.id)`;

/** Read by every post page. */
const threadCount = compiledOnce<Database>();
const commentsOfThreads = compiledOnce<Database>();

/**
 * A page of a post's threads with all their replies, in two queries whatever their size: how many
 * threads and comments there are, then the comments of the page's threads. A thread starts where its earliest
 * remaining comment does.
 */
export async function listCommentThreads(deps: CoreDeps, postId: string, request: ThreadsPage) {
  const [counted] = await threadCount(deps.db, { parameters: [postId] }, () =>
    deps.db
      .selectFrom("comments")
      .select(sql<number | string>`count(distinct ${threadOf})`.as("n"))
      .select(sql<number | string>`count(*)`.as("comments"))
      .where("comments.post_id", "=", postId),
  );
  const threadsCount = Number(counted?.n ?? 0);
  const commentsCount = Number(counted?.comments ?? 0);
  const pages = Math.max(1, Math.ceil(threadsCount / request.perPage));
  const page = Math.min(request.page ?? pages, pages);
  const offset = (page - 1) * request.perPage;
  const bound = { parameters: [postId, postId, request.perPage, offset] };
  const rows = await commentsOfThreads(deps.db, bound, () => {
    const pageThreads = deps.db
      .selectFrom("comments")
      .select(threadOf.as("thread_id"))
      .where("comments.post_id", "=", postId)
      .groupBy(threadOf)
      .orderBy(sql`min(comments.created_at)`)
      .orderBy(threadOf)
      .limit(request.perPage)
      .offset(offset);
    return selectComments(deps.db)
      .where("comments.post_id", "=", postId)
      .where(threadOf, "in", pageThreads)
      .orderBy("comments.created_at")
      .orderBy("comments.id");
  });
  const threads = new Map<string, CommentThread>();
  for (const row of rows) {
    const id = row.parent_id ?? row.id;
    let thread = threads.get(id);
    if (!thread) {
      thread = { id, comment: undefined, replies: [] };
      threads.set(id, thread);
    }
    const comment = presentComment(deps, row);
    if (row.parent_id === null) thread.comment = comment;
    else thread.replies.push(comment);
  }
  return { page, pages, threadsCount, commentsCount, threads: [...threads.values()] };
}
