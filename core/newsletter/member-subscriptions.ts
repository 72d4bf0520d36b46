import { newsletterMessages } from "../../contract/newsletter.js";
import type { CoreDeps } from "../deps.js";
import { iso } from "../shared/clock.js";
import { notFound } from "../shared/errors.js";
import type { Actor } from "../users/policies.js";
import { subscribe } from "./subscriptions.js";

// A member's own subscriptions (decision 028): those of their account's address, shown and ended
// in Settings, and subscribing in one click with it.

/** One of the member's subscriptions, as Settings lists it. */
export interface OwnSubscription {
  _id: string;
  scope: "site" | "author";
  authorId?: string;
  /** The writer's name, for an author's subscription. */
  authorName?: string;
  status: "pending" | "active";
  createdAt: string;
}

const addressOf = async (deps: Pick<CoreDeps, "db">, actor: Actor) =>
  (
    await deps.db
      .selectFrom("users")
      .select("email")
      .where("id", "=", actor.id)
      .executeTakeFirstOrThrow()
  ).email.toLowerCase();

/** The subscriptions of the member's address that are on or waiting for their confirmation. */
export async function ownSubscriptions(
  deps: Pick<CoreDeps, "db">,
  actor: Actor,
): Promise<OwnSubscription[]> {
  const email = await addressOf(deps, actor);
  const rows = await deps.db
    .selectFrom("subscriptions")
    .leftJoin("users", "users.id", "subscriptions.author_id")
    .select([
      "subscriptions.id",
      "subscriptions.author_id",
      "subscriptions.status",
      "subscriptions.created_at",
      "users.username",
    ])
    .where("subscriptions.email", "=", email)
    .where("subscriptions.status", "in", ["pending", "active"])
    .orderBy("subscriptions.created_at")
    .orderBy("subscriptions.id")
    .execute();
  return rows.map((row) => ({
    _id: row.id,
    scope: row.author_id === null ? "site" : "author",
    ...(row.author_id === null ? {} : { authorId: row.author_id, authorName: row.username ?? "" }),
    status: row.status === "active" ? "active" : "pending",
    createdAt: row.created_at,
  }));
}

/** Subscribes the member's own address: at once when it is verified, else by a mailed link. */
export async function subscribeOwnAddress(deps: CoreDeps, actor: Actor, authorId?: string) {
  const email = await addressOf(deps, actor);
  return subscribe(deps, actor, { email, ...(authorId ? { authorId } : {}) });
}

/** Ends one of the member's own subscriptions; anyone else's is not found (ids tell nothing). */
export async function leaveOwnSubscription(
  deps: Pick<CoreDeps, "db" | "clock">,
  actor: Actor,
  id: string,
) {
  const email = await addressOf(deps, actor);
  const ended = await deps.db
    .updateTable("subscriptions")
    .set({ status: "unsubscribed", ended_at: iso(deps.clock()) })
    .where("id", "=", id)
    .where("email", "=", email)
    .where("status", "in", ["pending", "active"])
    .executeTakeFirst();
  if (Number(ended.numUpdatedRows) === 0) throw notFound("Subscription not found");
  return { message: newsletterMessages.unsubscribed };
}
