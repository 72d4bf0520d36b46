import type { Kysely } from "kysely";
import { SettingsUpdateSchema, type Settings } from "../../contract/user-settings.js";
import type { Database } from "../../db/schema.js";
import type { CoreDeps } from "../deps.js";
import { iso } from "../shared/clock.js";
import { validate } from "../shared/validate.js";
import type { Actor } from "../users/policies.js";

type Deps = Pick<CoreDeps, "db" | "clock">;

/** Whether a person wants e-mail about conversations: on unless they turned it off. */
export async function wantsConversationMail(db: Kysely<Database>, userId: string) {
  const row = await db
    .selectFrom("user_settings")
    .select("email_notifications")
    .where("user_id", "=", userId)
    .executeTakeFirst();
  return row?.email_notifications !== 0;
}

export async function getSettings(deps: Deps, actor: Actor): Promise<Settings> {
  return { emailNotifications: await wantsConversationMail(deps.db, actor.id) };
}

/** Stores the choice, for whoever the caller proved to be (a session, or a signed mail link). */
export async function setEmailNotifications(deps: Deps, userId: string, on: boolean) {
  const email_notifications = on ? 1 : 0;
  const updated_at = iso(deps.clock());
  await deps.db
    .insertInto("user_settings")
    .values({ user_id: userId, email_notifications, updated_at })
    .onConflict((oc) => oc.column("user_id").doUpdateSet({ email_notifications, updated_at }))
    .execute();
}

export async function updateSettings(deps: Deps, actor: Actor, body: unknown): Promise<Settings> {
  const input = validate(SettingsUpdateSchema, body);
  await setEmailNotifications(deps, actor.id, input.emailNotifications);
  return getSettings(deps, actor);
}
