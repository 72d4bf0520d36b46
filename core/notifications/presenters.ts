import type { NotificationKind } from "../../db/schema.js";
import type { CoreDeps } from "../deps.js";
import { presentPublicUser } from "../users/presenters.js";

type Presenting = Pick<CoreDeps, "storage" | "site">;

interface NotificationFields {
  id: string;
  kind: NotificationKind;
  post_id: string | null;
  comment_id: string | null;
  read_at: string | null;
  created_at: string;
  actor_id: string;
  actor_username: string;
  actor_photo_key: string | null;
}

/** DESIGN.md 9: `{_id, kind, actor, postId?, commentId?, read, createdAt}`. */
export function presentNotification(deps: Presenting, row: NotificationFields) {
  return {
    _id: row.id,
    kind: row.kind,
    actor: presentPublicUser(deps, {
      id: row.actor_id,
      username: row.actor_username,
      photo_key: row.actor_photo_key,
    }),
    ...(row.post_id === null ? {} : { postId: row.post_id }),
    ...(row.comment_id === null ? {} : { commentId: row.comment_id }),
    read: row.read_at !== null,
    createdAt: row.created_at,
  };
}

export type PresentedNotification = ReturnType<typeof presentNotification>;
