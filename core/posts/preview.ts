import { PostPreviewSchema } from "../../contract/post-preview.js";
import type { CoreDeps } from "../deps.js";
import { forbidden, notFound } from "../shared/errors.js";
import { validate } from "../shared/validate.js";
import type { Actor } from "../users/policies.js";
import { canEditPost } from "./policies.js";
import { bodyFor, findPost, postMessages } from "./posts-service.js";

/**
 * The editor's preview: the HTML the post page would show for this body, written by this author,
 * made by the same code that renders it when the post is saved (a script is refused the same way,
 * 400 naming `description`). Nothing is stored. When editing, the post's own format decides (a
 * post written before Markdown stays plain text), so only its author may ask about it.
 */
export async function previewPostBody(deps: CoreDeps, actor: Actor, input: unknown) {
  const { description, postId } = validate(PostPreviewSchema, input);
  let format: "plain" | "markdown" = "markdown";
  if (postId !== undefined && postId !== "") {
    const post = await findPost(deps, postId);
    if (!post) throw notFound(postMessages.notFound);
    if (!canEditPost(actor, post)) throw forbidden(postMessages.notOwner);
    format = post.body_format;
  }
  if (description.trim() === "") return { html: "" };
  const { columns } = await bodyFor(deps, actor, description, format);
  return { html: columns.html };
}
