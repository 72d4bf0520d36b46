import { data } from "react-router";
import { newsletterOffer } from "../../core/newsletter/audience.js";
import { canEditPost } from "../../core/posts/policies.js";
import { findPost } from "../../core/posts/posts-service.js";
import { requireViewer } from "../features/auth/guards.server.js";
import type { Route } from "./+types/post-newsletter";

/**
 * What the post page's quick editor says about mailing the post (decision 028), read when it opens:
 * the page itself stays as cheap as any reader's. Its author's (or an admin's) alone, else 404.
 */
export async function loader({ context, params }: Route.LoaderArgs) {
  const viewer = requireViewer(context);
  const post = await findPost(context.deps, params.id);
  if (!post || !canEditPost(viewer.actor, post)) throw data(null, { status: 404 });
  const offer = await newsletterOffer(context.deps, post);
  return { ...offer, choice: post.newsletter };
}
