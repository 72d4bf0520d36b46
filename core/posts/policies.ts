import type { PostsTable } from "../../db/schema.js";
import type { Actor } from "../users/policies.js";

type Owned = Pick<PostsTable, "user_id">;

/** A published post is everyone's; a draft or a scheduled one only its author's and admins'. */
export const canSeePost = (actor: Actor | undefined, post: Owned & Pick<PostsTable, "status">) =>
  post.status === "published" || actor?.id === post.user_id || actor?.isAdmin === true;

/** Only the author edits a post or changes its image (SPEC.md 6). */
export const canEditPost = (actor: Actor | undefined, post: Owned) => actor?.id === post.user_id;

/** A post's revisions are its author's and admins' to read (decision 022). */
export const canSeeRevisionsOf = (actor: Actor | undefined, post: Owned) =>
  actor !== undefined && (actor.id === post.user_id || actor.isAdmin);

/** The author or an admin deletes it. */
export const canDeletePost = (actor: Actor | undefined, post: Owned) =>
  actor !== undefined && (actor.id === post.user_id || actor.isAdmin);

/**
 * Links in an admin's posts are the site's own and are followed; a member's carry
 * `rel="ugc nofollow"`, so writing here lends no search ranking to whatever they link to.
 */
export const linksFollowed = (author: Pick<Actor, "isAdmin">) => author.isAdmin;

/** Who is shown an author's drafts and scheduled posts: the author and admins. */
export const canSeeUnpublishedOf = (actor: Actor | undefined, authorId: string) =>
  actor !== undefined && (actor.id === authorId || actor.isAdmin);
