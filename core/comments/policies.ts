import type { CommentsTable } from "../../db/schema.js";
import type { Actor } from "../users/policies.js";

type Authored = Pick<CommentsTable, "user_id">;

/** Only the author edits a comment (SPEC.md 6). */
export const canEditComment = (actor: Actor | undefined, comment: Authored) =>
  actor?.id === comment.user_id;

/** The author or an admin deletes it. */
export const canDeleteComment = (actor: Actor | undefined, comment: Authored) =>
  actor !== undefined && (actor.id === comment.user_id || actor.isAdmin);
