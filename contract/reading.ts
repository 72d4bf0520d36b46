import { z } from "./zod.js";

/** Inputs and messages of following, bookmarks and notifications (DESIGN.md 9, "Reading"). */
export const readingMessages = {
  followSelf: "You cannot follow yourself",
  idsInvalid: "ids must be a list of notification ids",
} as const;

/** How many notifications one `POST /api/notifications/read` may name. */
export const NOTIFICATION_IDS_MAX = 100;

/** `POST /api/notifications/read`: the ids to mark read, or every unread one when absent. */
export const NotificationsReadSchema = z.object({
  ids: z
    .array(z.string({ error: readingMessages.idsInvalid }).max(100, readingMessages.idsInvalid), {
      error: readingMessages.idsInvalid,
    })
    .max(NOTIFICATION_IDS_MAX, readingMessages.idsInvalid)
    .optional(),
});
