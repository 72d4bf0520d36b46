import type { PostsTable } from "../../db/schema.js";
import type { Actor } from "../users/policies.js";

type Owned = Pick<PostsTable, "user_id">;

/** Only the author edits a post or changes its image (SPEC.md 6). */
export const canEditPost = (actor: Actor | undefined, post: Owned) => actor?.id === post.user_id;

/** The author or an admin deletes it. */
export const canDeletePost = (actor: Actor | undefined, post: Owned) =>
  actor !== undefined && (actor.id === post.user_id || actor.isAdmin);
