import type { Kysely } from "kysely";
import { compiledOnce } from "../../db/compiled-once.js";
import { NotificationsReadSchema } from "../../contract/reading.js";
import type { Database, NotificationKind } from "../../db/schema.js";
import type { CoreDeps } from "../deps.js";
import { pageOf } from "../posts/queries.js";
import { iso } from "../shared/clock.js";
import { newId } from "../shared/ids.js";
import { validate } from "../shared/validate.js";
import type { Actor } from "../users/policies.js";
import { presentNotification } from "./presenters.js";

/** What happened, to whom: the post and comment it is about, where there is one. */
export interface NotificationEvent {
  kind: NotificationKind;
  recipientId: string;
  postId?: string | undefined;
  commentId?: string | undefined;
}

/** Kinds that stand for a state (a like, a follow) rather than an event: one per actor and target. */
const toggled = (kind: NotificationKind) => kind === "like" || kind === "follow";

function sameTarget(trx: Kysely<Database>, actor: Actor, event: NotificationEvent) {
  return trx
    .selectFrom("notifications")
    .where("recipient_id", "=", event.recipientId)
    .where("actor_id", "=", actor.id)
    .where("kind", "=", event.kind)
    .where((eb) =>
      event.postId === undefined ? eb("post_id", "is", null) : eb("post_id", "=", event.postId),
    );
}

/**
 * Tells the recipient what the actor did, in the action's own transaction (`trx`), so both are
 * written or neither. Nobody is told of their own actions. A like or a follow is told once: while
 * an earlier one is still there (the recipient saw it), liking again adds nothing.
 */
export async function notify(
  trx: Kysely<Database>,
  deps: Pick<CoreDeps, "clock">,
  actor: Actor,
  event: NotificationEvent,
) {
  if (event.recipientId === actor.id) return;
  if (toggled(event.kind)) {
    const earlier = await sameTarget(trx, actor, event).select("id").executeTakeFirst();
    if (earlier) return;
  }
  await trx
    .insertInto("notifications")
    .values({
      id: newId(),
      recipient_id: event.recipientId,
      actor_id: actor.id,
      kind: event.kind,
      post_id: event.postId ?? null,
      comment_id: event.commentId ?? null,
      read_at: null,
      created_at: iso(deps.clock()),
    })
    .execute();
}

/**
 * An unlike or an unfollow takes back the notification of the like or the follow while it is
 * unread; one already seen stays (it was true when it was read).
 */
export async function withdrawNotification(
  trx: Kysely<Database>,
  actor: Actor,
  event: NotificationEvent,
) {
  await trx
    .deleteFrom("notifications")
    .where("recipient_id", "=", event.recipientId)
    .where("actor_id", "=", actor.id)
    .where("kind", "=", event.kind)
    .where((eb) =>
      event.postId === undefined ? eb("post_id", "is", null) : eb("post_id", "=", event.postId),
    )
    .where("read_at", "is", null)
    .execute();
}

/**
 * The actor's own notifications that they may still see: one about a post moved back to drafts
 * (or scheduled) is held back, title and all, from anyone who may not see the post (as
 * `canSeePost`), and comes back when it is published again.
 */
function notificationsOf(db: Kysely<Database>, actor: Actor) {
  return db
    .selectFrom("notifications")
    .leftJoin("posts", "posts.id", "notifications.post_id")
    .where("notifications.recipient_id", "=", actor.id)
    .$if(!actor.isAdmin, (query) =>
      query.where((eb) =>
        eb.or([
          eb("notifications.post_id", "is", null),
          eb("posts.status", "=", "published"),
          eb("posts.user_id", "=", actor.id),
        ]),
      ),
    );
}

/** What `notificationsOf` binds, in order: an admin's has no condition on the post. */
const notificationsBinding = (actor: Actor) =>
  actor.isAdmin
    ? { shape: "admin", parameters: [actor.id] }
    : { shape: "member", parameters: [actor.id, "published", actor.id] };

/** Read on every signed-in page. */
const unreadCount = compiledOnce<Database>();

/** How many of a person's notifications are unread (the bell's number). */
export async function countUnread(deps: Pick<CoreDeps, "db">, actor: Actor) {
  const [row] = await unreadCount(deps.db, notificationsBinding(actor), () =>
    notificationsOf(deps.db, actor)
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .where("notifications.read_at", "is", null),
  );
  return Number(row?.n ?? 0);
}

async function countAll(deps: Pick<CoreDeps, "db">, actor: Actor) {
  const row = await notificationsOf(deps.db, actor)
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** One page of the actor's own notifications, newest first, with the post each is about. */
async function notificationRows(deps: CoreDeps, actor: Actor, pageNumber: number) {
  const { limit, offset } = pageOf(pageNumber);
  return notificationsOf(deps.db, actor)
    .innerJoin("users", "users.id", "notifications.actor_id")
    .select([
      "notifications.id",
      "notifications.kind",
      "notifications.post_id",
      "notifications.comment_id",
      "notifications.read_at",
      "notifications.created_at",
      "users.id as actor_id",
      "users.username as actor_username",
      "users.photo_key as actor_photo_key",
      "posts.title as post_title",
    ])
    .orderBy("notifications.created_at", "desc")
    .orderBy("notifications.id", "desc")
    .limit(limit)
    .offset(offset)
    .execute();
}

export type NotificationRow = Awaited<ReturnType<typeof notificationRows>>[number];

/** `GET /api/notifications?pageNumber=n`: the actor's own, newest first, and how many are unread. */
export async function listNotifications(deps: CoreDeps, actor: Actor, pageNumber = 1) {
  const [unread, rows] = await Promise.all([
    countUnread(deps, actor),
    notificationRows(deps, actor, pageNumber),
  ]);
  return { unread, notifications: rows.map((row) => presentNotification(deps, row)) };
}

/** The notifications page: a page of them with the title of the post each is about. */
export async function notificationsPage(deps: CoreDeps, actor: Actor, pageNumber: number) {
  const [total, rows] = await Promise.all([
    countAll(deps, actor),
    notificationRows(deps, actor, pageNumber),
  ]);
  return {
    total,
    notifications: rows.map((row) => ({
      ...presentNotification(deps, row),
      postTitle: row.post_title,
    })),
  };
}

/**
 * Marks the actor's notifications read: the ids given, or every unread one. Ids of anyone else's
 * notifications (or of none) change nothing: the update only ever touches the actor's own rows.
 */
export async function markNotificationsRead(deps: CoreDeps, actor: Actor, body: unknown) {
  const { ids } = validate(NotificationsReadSchema, body);
  if (ids?.length === 0) return;
  let update = deps.db
    .updateTable("notifications")
    .set({ read_at: iso(deps.clock()) })
    .where("recipient_id", "=", actor.id)
    .where("read_at", "is", null);
  if (ids) update = update.where("id", "in", ids);
  await update.execute();
}
