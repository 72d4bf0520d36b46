import {
  SettingsUpdateSchema,
  settingsMessages,
  UnsubscribedSchema,
  UserSettingsSchema,
} from "../../../contract/user-settings.js";
import type { HiddenRoute, RouteDocs } from "../openapi/route-docs.js";

const link = {
  userId: "The account the mailed link was made for",
  token: "The link's token (an HMAC of the account id)",
};

/** The API reference's entries for server/api/user-settings/routes.ts (decision 017). */
export const userSettingsDocs = {
  read: {
    summary: "Read your own settings",
    tag: "settings",
    access: "signed-in",
    response: { status: 200, description: "Your settings", schema: UserSettingsSchema },
  },
  update: {
    summary: "Change your own settings",
    description:
      "`emailNotifications`: mail about new comments on your posts and replies to your comments, at most one every 10 minutes (on by default).",
    tag: "settings",
    access: "signed-in",
    body: SettingsUpdateSchema,
    response: { status: 200, description: "Your settings, saved", schema: UserSettingsSchema },
  },
  unsubscribe: {
    summary: "Turn conversation mail off from a mailed link (RFC 8058 one-click)",
    description:
      "The `List-Unsubscribe` address of every conversation mail. A mail client POSTs `List-Unsubscribe=One-Click` (form-encoded); no session is needed, the link is the proof. Repeating it is harmless.",
    tag: "settings",
    access: "anyone",
    params: link,
    response: { status: 200, description: "Mail turned off", schema: UnsubscribedSchema },
    errors: { 404: settingsMessages.badUnsubscribeLink },
  },
  unsubscribePage: {
    hidden: "the one-click address opened in a browser: a 303 to the unsubscribe page",
  },
} satisfies Record<string, RouteDocs | HiddenRoute>;
