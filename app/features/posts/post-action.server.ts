import { redirect, type AppLoadContext } from "react-router";
import {
  createComment,
  deleteComment,
  updateComment,
} from "../../../core/comments/comments-service.js";
import {
  changePostStatus,
  deletePost,
  replacePostImage,
  toggleLike,
  updatePost,
} from "../../../core/posts/posts-service.js";
import { flashCookie } from "../flash.server.js";
import { attempt, fail, failure, imageForm, limited } from "../forms/action.server.js";
import { publishingFields } from "./publishing.server.js";
import { profilePath } from "../../../contract/page-paths.js";
import type { LimitName } from "../../../contract/site-host.js";

export type PostIntent =
  | "like"
  | "comment"
  | "reply"
  | "edit-comment"
  | "delete-comment"
  | "edit-post"
  | "unpublish"
  | "publish"
  | "post-image"
  | "delete-post";

/** The success notices of SPEC.md 8, where it names them; otherwise the server's message. */
const NOTICES: Partial<Record<PostIntent, string>> = {
  "edit-post": "Post Updated Successfully",
  unpublish: "Post moved back to drafts",
  publish: "Post published",
  "post-image": "New Post Image Uploaded Successfully",
};

/** Which of the API's limits each kind of post-page request counts against. */
const LIMITS: Record<PostIntent, LimitName | undefined> = {
  like: "like",
  comment: "comment",
  reply: "comment",
  "edit-comment": "comment",
  "delete-comment": undefined,
  "edit-post": "postEdit",
  unpublish: "postEdit",
  publish: "postEdit",
  "post-image": "upload",
  "delete-post": undefined,
};

const isIntent = (value: string | undefined): value is PostIntent =>
  value !== undefined && Object.hasOwn(LIMITS, value);

/** Everything a signed-in reader does on a post page, each checked by the domain's policies. */
export async function postAction(request: Request, context: AppLoadContext, postId: string) {
  const viewer = context.viewer;
  if (!viewer) return redirect("/login");
  const { actor } = viewer;
  const { fields, image } = await imageForm(request);
  const intent = fields.intent;
  if (!isIntent(intent)) return fail(failure(400, "Unknown action"));
  const limit = LIMITS[intent];
  const tooMany = limit ? await limited(context, limit) : undefined;
  if (tooMany) return tooMany;
  const { deps } = context;
  const result = await attempt(async (): Promise<{ message?: string }> => {
    switch (intent) {
      case "like":
        await toggleLike(deps, actor, postId);
        return {};
      case "comment":
        await createComment(deps, actor, { text: fields.text, postId });
        return { message: "Comment added" };
      case "reply":
        await createComment(deps, actor, { text: fields.text, postId, parentId: fields.parentId });
        return { message: "Reply added" };
      case "edit-comment":
        return updateComment(deps, actor, fields.commentId ?? "", { text: fields.text });
      case "delete-comment":
        return deleteComment(deps, actor, fields.commentId ?? "");
      case "edit-post":
        await updatePost(deps, actor, postId, publishingFields(fields));
        return {};
      case "unpublish":
        await changePostStatus(deps, actor, postId, { status: "draft" });
        return {};
      case "publish":
        // As the editor's Publish: the cover it needs, the new-account brake, its newsletter.
        await updatePost(deps, actor, postId, { status: "published" });
        return {};
      case "post-image":
        await context.outsideSlot(() =>
          replacePostImage(deps, actor, postId, image, request.signal),
        );
        return {};
      case "delete-post":
        return deletePost(deps, actor, postId);
    }
  });
  if (!result.ok) return fail({ ...result, intent });
  if (intent === "delete-post") {
    return redirect(profilePath(actor.id), {
      headers: { "Set-Cookie": flashCookie(result.value.message ?? "") },
    });
  }
  const message = NOTICES[intent] ?? result.value.message;
  return { ok: true, intent, errors: {}, ...(message ? { message } : {}) };
}
