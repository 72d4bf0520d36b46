import { PageQuerySchema } from "../../../contract/content.js";
import { NotificationsReadSchema } from "../../../contract/reading.js";
import { NotificationListSchema } from "../../../contract/responses.js";
import type { RouteDocs } from "../openapi/route-docs.js";

/** The API reference's entries for server/api/notifications/routes.ts. */
export const notificationDocs = {
  list: {
    summary: "List your notifications",
    description:
      "Comments on your posts, replies to your comments, likes and new followers; never your own actions.",
    access: "signed-in",
    query: PageQuerySchema.pick({ pageNumber: true }),
    response: {
      status: 200,
      description: "6 a page, newest first",
      schema: NotificationListSchema,
    },
  },
  read: {
    summary: "Mark notifications read",
    description: "The ids given (at most 100), or every unread one when `ids` is absent.",
    access: "signed-in",
    body: NotificationsReadSchema,
    response: { status: 204, description: "Marked" },
  },
} satisfies Record<string, RouteDocs>;
