import { redirect, type AppLoadContext } from "react-router";
import {
  createComment,
  deleteComment,
  updateComment,
} from "../../../core/comments/comments-service.js";
import {
  deletePost,
  replacePostImage,
  toggleLike,
  updatePost,
} from "../../../core/posts/posts-service.js";
import { attempt, imageForm } from "../forms/action.server.js";

export type PostIntent =
  | "like"
  | "comment"
  | "edit-comment"
  | "delete-comment"
  | "edit-post"
  | "post-image"
  | "delete-post";

/** The success notices of SPEC.md 8, where it names them; otherwise the server's message. */
const NOTICES: Partial<Record<PostIntent, string>> = {
  "edit-post": "Post Updated Successfully",
  "post-image": "New Post Image Uploaded Successfully",
};

/** Everything a signed-in reader does on a post page, each checked by the domain's policies. */
export async function postAction(request: Request, context: AppLoadContext, postId: string) {
  const viewer = context.viewer;
  if (!viewer) return redirect("/login");
  const { actor } = viewer;
  const { fields, image } = await imageForm(request);
  const intent = fields.intent as PostIntent | undefined;
  const { deps } = context;
  const result = await attempt(async (): Promise<{ message?: string }> => {
    switch (intent) {
      case "like":
        await toggleLike(deps, actor, postId);
        return {};
      case "comment":
        await createComment(deps, actor, { text: fields.text, postId });
        return { message: "Comment added" };
      case "edit-comment":
        return updateComment(deps, actor, fields.commentId ?? "", { text: fields.text });
      case "delete-comment":
        return deleteComment(deps, actor, fields.commentId ?? "");
      case "edit-post":
        await updatePost(deps, actor, postId, fields);
        return {};
      case "post-image":
        await replacePostImage(deps, actor, postId, image);
        return {};
      case "delete-post":
        return deletePost(deps, actor, postId);
      default:
        return { message: "Unknown action" };
    }
  });
  if (result.ok && intent === "delete-post") return redirect(`/profile/${actor.id}`);
  if (!result.ok) return { ...result, intent };
  const message = (intent && NOTICES[intent]) ?? result.value.message;
  return { ok: true, intent, errors: {}, ...(message ? { message } : {}) };
}
