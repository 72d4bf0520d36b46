import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.js";
import { presentOne } from "../comments/comments-service.js";
import type { CoreDeps } from "../deps.js";
import type { DomainEvent } from "../events/events.js";
import { getPost } from "../posts/posts-service.js";
import { DomainError } from "../shared/errors.js";
import { presentPublicUser } from "../users/presenters.js";
import { endpointsWanting, queueDeliveries } from "./webhooks.js";

/** Undefined where what an event names is gone (or no longer public) since. */
const unlessGone = async <T>(read: () => Promise<T>): Promise<T | undefined> => {
  try {
    return await read();
  } catch (error) {
    if (error instanceof DomainError && error.kind === "not_found") return undefined;
    throw error;
  }
};

/**
 * What a webhook says of an event (decision 025), read when the event is dispatched: a post as an
 * anonymous GET /api/posts/:id gives it (comments aside), a comment as the API shows it, a new
 * member's public profile (no e-mail address leaves the site). Undefined: nothing to say, because
 * it is gone since (a later event tells of that) or was never public.
 */
async function dataOf(deps: CoreDeps, event: DomainEvent): Promise<unknown> {
  switch (event.type) {
    case "post.published":
    case "post.updated":
      return unlessGone(() => getPost(deps, undefined, event.postId, ["comments"]));
    case "post.deleted":
      return { _id: event.postId };
    case "comment.created":
      // Talk under drafts stays between their author and the admins.
      return event.postPublished ? unlessGone(() => presentOne(deps, event.commentId)) : undefined;
    case "user.created": {
      const user = await deps.db
        .selectFrom("users")
        .select(["id", "username", "photo_key"])
        .where("id", "=", event.userId)
        .executeTakeFirst();
      return user && presentPublicUser(deps, user);
    }
  }
}

/**
 * The webhooks' subscriber: one delivery for each endpoint that wants the event, its body fixed
 * now. A site without webhooks pays one small read.
 */
export async function tellWebhooks(deps: CoreDeps, event: DomainEvent, at: Date) {
  const wanting = await endpointsWanting(deps.db, event.type);
  if (wanting.length === 0) return undefined;
  const data = await dataOf(deps, event);
  if (data === undefined) return undefined;
  return async (trx: Kysely<Database>) => {
    await queueDeliveries(trx, wanting, { type: event.type, at, data });
  };
}
