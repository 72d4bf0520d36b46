import type { CommentsTable, UsersTable } from "../../db/schema.js";
import type { CoreDeps } from "../deps.js";
import { presentPublicUser } from "../users/presenters.js";

export type CommentRow = CommentsTable & Pick<UsersTable, "username" | "photo_key">;

export function presentComment(deps: Pick<CoreDeps, "storage" | "site">, row: CommentRow) {
  return {
    _id: row.id,
    id: row.id,
    text: row.text,
    postId: row.post_id,
    /** The thread's first comment, null at the top (it may have been deleted since). */
    parentId: row.parent_id,
    user: presentPublicUser(deps, {
      id: row.user_id,
      username: row.username,
      photo_key: row.photo_key,
    }),
    userName: row.username,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export type PresentedComment = ReturnType<typeof presentComment>;
