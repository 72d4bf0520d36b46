import { z } from "zod";
import {
  newsletterMessages,
  SUBSCRIBER_IMPORT_CONFIRMATIONS_MAX,
  SUBSCRIBER_IMPORT_MAX_BYTES,
  SUBSCRIBER_IMPORT_MAX_ROWS,
  SubscriberImportOptionsSchema,
  subscriberMessages,
  SubscribersFilterSchema,
  SubscribersQuerySchema,
  subscribeSchema,
} from "../../../contract/newsletter.js";
import { SubscriberImportSchema, SubscriberListSchema } from "../../../contract/responses.js";
import type { RouteDocs } from "../openapi/route-docs.js";

const MessageSchema = z.object({ message: z.string() });

const PostNewsletterSchema = z.object({
  status: z.enum(["not_sent", "sending", "sent"]),
  recipients: z.number().int(),
  delivered: z.number().int(),
  failed: z.number().int(),
  sentAt: z.string().nullable(),
});

const reach =
  "An admin reaches every subscription (the site's and each writer's); a member those to them as a writer.";

const ImportForm = SubscriberImportOptionsSchema.extend({
  file: z
    .file()
    .describe(
      `The CSV file, at most ${String(SUBSCRIBER_IMPORT_MAX_BYTES)} bytes, an email column`,
    ),
});

/** The API reference's entries for server/api/newsletter/routes.ts (decision 028). */
export const newsletterDocs = {
  subscribe: {
    summary: "Subscribe an address to the site's posts, or one writer's",
    description:
      "No `authorId`: every new post of the site; with one, that writer's. A confirmation mail comes first (at most three an address a day); a signed-in member subscribing their own verified address is subscribed at once. The answer is the same whatever the address's state. No opens or clicks are tracked.",
    access: "anyone",
    body: subscribeSchema,
    response: { status: 202, description: "Accepted", schema: MessageSchema },
    errors: { 404: newsletterMessages.authorNotFound },
  },
  confirm: {
    summary: "Confirm a subscription from its mailed link",
    access: "anyone",
    params: { id: "The subscription", token: "The link's token (an HMAC of its id)" },
    response: { status: 200, description: "Confirmed", schema: MessageSchema },
    errors: { 404: newsletterMessages.badLink },
  },
  subscribers: {
    summary: "List subscribers",
    description: `${reach} Newest first, 20 a page; \`total\` counts every match. \`q\` finds addresses that contain it, in any case.`,
    access: "signed-in",
    query: SubscribersQuerySchema,
    response: { status: 200, description: "A page of subscriptions", schema: SubscriberListSchema },
    errors: { 400: subscriberMessages.statusInvalid },
  },
  exportCsv: {
    summary: "Download subscribers as CSV",
    description: `${reach} Every match of the filter, newest first, as an attachment (text/csv): \`email,scope,author,status,created_at\`, author the writer's username (empty for the site). A cell that would start a spreadsheet formula (= + - @, tab, CR) starts with an apostrophe.`,
    access: "signed-in",
    query: SubscribersFilterSchema,
    response: { status: 200, description: "The CSV file (text/csv)" },
    errors: { 400: subscriberMessages.statusInvalid },
  },
  deleteSubscriber: {
    summary: "Remove a subscriber",
    description: `${reach} The subscription is deleted, its address with it.`,
    access: "signed-in",
    params: { id: "The subscription" },
    response: { status: 204, description: "Removed" },
    errors: { 404: "No such subscription within the caller's reach" },
  },
  importSubscribers: {
    summary: "Import subscribers from a CSV file",
    description:
      `An admin's become the site's subscribers, a member's subscribers to them. The file is the body (\`Content-Type: text/csv\`, options in the query) or the \`file\` of a multipart form (options as fields); its first row names the columns, one of them \`email\` (any case), as Ghost's members and Substack's subscribers exports have it. ` +
      `\`consent=yes\`: the people on the list agreed to get the posts, and are subscribed at once; otherwise each new address is sent a confirmation mail (at most ${String(SUBSCRIBER_IMPORT_CONFIRMATIONS_MAX)} an import, three an address a day). ` +
      "Left out, each with its line and why: addresses that are none, rows the export marks unsubscribed (Ghost's `subscribed_to_emails` false, Substack's `email_disabled` true, a `status` of unsubscribed or bounced), repeats, addresses already subscribed or waiting for their confirmation, those that unsubscribed here and those that bounced.",
    access: "signed-in",
    query: SubscriberImportOptionsSchema,
    form: ImportForm,
    response: { status: 200, description: "What was imported", schema: SubscriberImportSchema },
    errors: {
      400: `${subscriberMessages.noEmailColumn}; more than ${String(SUBSCRIBER_IMPORT_MAX_ROWS)} rows; no file; not CSV; too many confirmations to send`,
      413: subscriberMessages.tooLarge,
      415: "A body that is neither text/csv nor a multipart form",
    },
  },
  postNewsletter: {
    summary: "How a post's mailing to subscribers went",
    description:
      "Once sent, `recipients` is how many it went to; while `not_sent`, how many it would go " +
      "to now (the active subscribers of the site and of its writer, each address once).",
    tag: "posts",
    access: "signed-in",
    params: { id: "The post (its writer or an admin)" },
    response: { status: 200, description: "Its mailing", schema: PostNewsletterSchema },
    errors: { 404: newsletterMessages.postNotFound },
  },
  testMail: {
    summary: "Send me a test e-mail of a post",
    description:
      "The post's newsletter mail as its subscribers would get it, now and whatever its status, " +
      "to the caller's own address alone (subject prefixed `[Test]`).",
    tag: "posts",
    access: "signed-in",
    params: { id: "The post (its writer or an admin)" },
    response: { status: 202, description: "Sent", schema: MessageSchema },
    errors: {
      403: "The caller is neither the post's writer nor an admin",
      404: newsletterMessages.postNotFound,
    },
  },
} satisfies Record<string, RouteDocs>;
