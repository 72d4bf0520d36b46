import { z } from "zod";
import { newsletterMessages, subscribeSchema } from "../../../contract/newsletter.js";
import type { RouteDocs } from "../openapi/route-docs.js";

const MessageSchema = z.object({ message: z.string() });

const PostNewsletterSchema = z.object({
  status: z.enum(["not_sent", "sending", "sent"]),
  recipients: z.number().int(),
  delivered: z.number().int(),
  failed: z.number().int(),
  sentAt: z.string().nullable(),
});

/** The API reference's entries for server/api/newsletter/routes.ts (decision 028). */
export const newsletterDocs = {
  subscribe: {
    summary: "Subscribe an address to the site's posts, or one writer's",
    description:
      "No `authorId`: every new post of the site; with one, that writer's. A confirmation mail comes first (at most three an address a day); a signed-in member subscribing their own verified address is subscribed at once. The answer is the same whatever the address's state. No opens or clicks are tracked.",
    access: "anyone",
    body: subscribeSchema,
    response: { status: 200, description: "Accepted (202)", schema: MessageSchema },
    errors: { 404: newsletterMessages.authorNotFound },
  },
  confirm: {
    summary: "Confirm a subscription from its mailed link",
    access: "anyone",
    params: { id: "The subscription", token: "The link's token (an HMAC of its id)" },
    response: { status: 200, description: "Confirmed", schema: MessageSchema },
    errors: { 404: newsletterMessages.badLink },
  },
  postNewsletter: {
    summary: "How a post's mailing to subscribers went",
    tag: "posts",
    access: "signed-in",
    params: { id: "The post (its writer or an admin)" },
    response: { status: 200, description: "Its mailing", schema: PostNewsletterSchema },
    errors: { 404: newsletterMessages.postNotFound },
  },
} satisfies Record<string, RouteDocs>;
