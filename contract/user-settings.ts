import { z } from "./zod.js";

/** A person's own settings (DESIGN.md 9, "Reading"): `GET, PUT /api/users/me/settings`. */
export const settingsMessages = {
  emailNotificationsRequired: "emailNotifications must be true or false",
  updated: "Settings saved",
  unsubscribed: "You will get no more emails about conversations",
  badUnsubscribeLink: "This unsubscribe link is not valid",
} as const;

export const SettingsUpdateSchema = z.object({
  emailNotifications: z.boolean({ error: settingsMessages.emailNotificationsRequired }),
});

export type Settings = z.output<typeof SettingsUpdateSchema>;

/** The answer of `GET, PUT /api/users/me/settings`. */
export const UserSettingsSchema = z.object({ emailNotifications: z.boolean() });

/** The answer of the one-click unsubscribe. */
export const UnsubscribedSchema = z.object({ message: z.string() });
