import { COMMENT_MAX } from "../../contract/limits.js";
import {
  CommentCreateSchema,
  CommentUpdateSchema,
  contentMessages,
} from "../../contract/content.js";
import type { Kysely } from "kysely";
import type { CommentsTable, Database } from "../../db/schema.js";
import { recordAudit } from "../audit/audit-log.js";
import { recordEvent } from "../events/events.js";
import type { CoreDeps } from "../deps.js";
import { checkNewAccountBrake } from "../spam/new-accounts.js";
import { notify } from "../notifications/notifications-service.js";
import { findPost, findVisiblePost, postMessages } from "../posts/posts-service.js";
import { iso } from "../shared/clock.js";
import { changingContent } from "../shared/content-changes.js";
import { forbidden, invalid, notFound } from "../shared/errors.js";
import { isId, newId } from "../shared/ids.js";
import type { RowWindow } from "../shared/row-window.js";
import { validate } from "../shared/validate.js";
import { assertAdmin, type Actor } from "../users/policies.js";
import { canDeleteComment, canEditComment } from "./policies.js";
import { presentComment } from "./presenters.js";
import { selectComments } from "./queries.js";

export const commentMessages = {
  notFound: "Comment not found",
  notAuthor: "Only the author of this comment may change it",
  deleteDenied: "Only the author of this comment or an admin may delete it",
  updated: "Comment updated successfully",
  deleted: "Comment has been deleted",
} as const;

export async function presentOne(deps: CoreDeps, id: string) {
  const row = await selectComments(deps.db).where("comments.id", "=", id).executeTakeFirst();
  if (!row) throw notFound(commentMessages.notFound);
  return presentComment(deps, row);
}

async function requireComment(deps: CoreDeps, id: string) {
  const comment = isId(id)
    ? await deps.db.selectFrom("comments").selectAll().where("id", "=", id).executeTakeFirst()
    : undefined;
  if (!comment) throw notFound(commentMessages.notFound);
  return comment;
}

/** Every comment, newest first, for the admin table. */
/** Every comment, newest first; or one page of them (the dashboard's table). */
export async function listComments(deps: CoreDeps, actor: Actor, page?: RowWindow) {
  assertAdmin(actor);
  let query = selectComments(deps.db)
    .orderBy("comments.created_at", "desc")
    .orderBy("comments.id", "desc");
  if (page) query = query.limit(page.limit).offset(page.offset);
  const rows = await query.execute();
  return rows.map((row) => presentComment(deps, row));
}

export async function countComments(deps: CoreDeps, actor: Actor) {
  assertAdmin(actor);
  const row = await deps.db
    .selectFrom("comments")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Where a reply goes: the thread of the comment replied to (one level, as Ghost has it), and its
 * text addressed "@name" when it answers a reply rather than the thread's first comment.
 */
async function replyPlace(deps: CoreDeps, postId: string, parentId: string, text: string) {
  const parent = isId(parentId)
    ? await selectComments(deps.db).where("comments.id", "=", parentId).executeTakeFirst()
    : undefined;
  if (!parent) {
    throw notFound(contentMessages.parentNotFound, { parentId: contentMessages.parentNotFound });
  }
  if (parent.post_id !== postId) {
    throw invalid(contentMessages.parentOtherPost, { parentId: contentMessages.parentOtherPost });
  }
  if (parent.parent_id === null) return { threadId: parent.id, text, repliedTo: parent.user_id };
  const address = `@${parent.username}`;
  const addressed =
    text.startsWith(address) || address.length + 1 + text.length > COMMENT_MAX
      ? text
      : `${address} ${text}`;
  return { threadId: parent.parent_id, text: addressed, repliedTo: parent.user_id };
}

export async function createComment(deps: CoreDeps, actor: Actor, body: unknown) {
  const input = validate(CommentCreateSchema, body);
  const post = await findVisiblePost(deps, actor, input.postId);
  if (!post) throw notFound(postMessages.notFound);
  await checkNewAccountBrake(deps, actor, "comments");
  const place = input.parentId
    ? await replyPlace(deps, post.id, input.parentId, input.text)
    : { threadId: null, text: input.text, repliedTo: undefined };
  const now = iso(deps.clock());
  const id = newId();
  try {
    await changingContent(
      deps,
      () =>
        deps.db.transaction().execute(async (trx) => {
          await trx
            .insertInto("comments")
            .values({
              id,
              post_id: post.id,
              user_id: actor.id,
              parent_id: place.threadId,
              text: place.text,
              created_at: now,
              updated_at: now,
            })
            .execute();
          // The person answered hears of a reply; the post's author of every comment on it, once
          // (an author answered on their own post is told of the reply alone).
          const about = { postId: post.id, commentId: id };
          if (place.repliedTo !== undefined) {
            await notify(trx, deps, actor, {
              kind: "reply",
              recipientId: place.repliedTo,
              ...about,
            });
          }
          if (place.repliedTo !== post.user_id) {
            await notify(trx, deps, actor, {
              kind: "comment",
              recipientId: post.user_id,
              ...about,
            });
          }
          await recordEvent(trx, deps, {
            type: "comment.created",
            commentId: id,
            postId: post.id,
            repliedTo: input.parentId ?? null,
            postPublished: post.status === "published",
          });
        }),
      { postId: post.id, comments: true },
    );
  } catch (error) {
    // The post was deleted between the check and the insert.
    if (!(await findPost(deps, post.id))) throw notFound(postMessages.notFound);
    throw error;
  }
  return presentOne(deps, id);
}

export async function updateComment(deps: CoreDeps, actor: Actor, id: string, body: unknown) {
  const comment = await requireComment(deps, id);
  if (!canEditComment(actor, comment)) throw forbidden(commentMessages.notAuthor);
  const { text } = validate(CommentUpdateSchema, body);
  await changingContent(
    deps,
    () =>
      deps.db
        .updateTable("comments")
        .set({ text, updated_at: iso(deps.clock()) })
        .where("id", "=", comment.id)
        .execute(),
    { postId: comment.post_id, comments: true },
  );
  return { ...(await presentOne(deps, comment.id)), message: commentMessages.updated };
}

export async function deleteComment(deps: CoreDeps, actor: Actor, id: string) {
  const comment = await requireComment(deps, id);
  if (!canDeleteComment(actor, comment)) throw forbidden(commentMessages.deleteDenied);
  await changingContent(
    deps,
    () => deps.db.transaction().execute((trx) => deleteCommentIn(trx, deps, actor, comment)),
    { postId: comment.post_id, comments: true },
  );
  return { commentId: comment.id, message: commentMessages.deleted };
}

/**
 * Deletes a comment in the caller's transaction (logged when it is not the actor's own; the
 * caller has checked they may). Its replies stay, under "This comment was deleted".
 */
export async function deleteCommentIn(
  trx: Kysely<Database>,
  deps: Pick<CoreDeps, "clock">,
  actor: Actor,
  comment: Pick<CommentsTable, "id" | "user_id" | "text">,
) {
  await trx.deleteFrom("comments").where("id", "=", comment.id).execute();
  if (actor.id !== comment.user_id) {
    await recordAudit(trx, deps, actor, "comment.delete", {
      kind: "comment",
      id: comment.id,
      summary: comment.text,
    });
  }
}
