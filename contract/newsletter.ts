import { z } from "./zod.js";
import { EMAIL_PATTERN } from "./auth.js";
import { EMAIL_MAX } from "./limits.js";

/** What readers are told about newsletters (DESIGN.md 11, "Newsletters"; decision 028). */
export const newsletterMessages = {
  // The same answer whatever the address's state: nobody learns whether an address is subscribed.
  checkInbox: "Check your inbox: a link there confirms your subscription",
  subscribed: "You are subscribed",
  confirmed: "Your subscription is confirmed",
  unsubscribed: "You are unsubscribed: no more posts will be e-mailed to you",
  badLink: "This link is not valid or has expired",
  emailInvalid: "Email must be a valid email address",
  authorNotFound: "Writer not found",
  postNotFound: "Post not found",
} as const;

export const subscribeSchema = z.object({
  email: z
    .string({ error: newsletterMessages.emailInvalid })
    .trim()
    .max(EMAIL_MAX, newsletterMessages.emailInvalid)
    .regex(EMAIL_PATTERN, newsletterMessages.emailInvalid),
  authorId: z.string().max(100).optional(),
});

export type NewsletterStatus = "not_sent" | "sending" | "sent";

/** `GET /api/posts/:id/newsletter`: how a post's mailing went. */
export interface PostNewsletterResponse {
  status: NewsletterStatus;
  recipients: number;
  delivered: number;
  failed: number;
  sentAt: string | null;
}

// Owners' lists (DESIGN.md 11, "Newsletters": admins see every subscription, a member those to
// them as a writer).

/** Where a subscription stands. */
export const SUBSCRIPTION_STATUSES = ["pending", "active", "unsubscribed", "bounced"] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** Subscriptions a page of `GET /api/newsletter/subscribers` lists (as webhook deliveries). */
export const SUBSCRIBERS_PAGE_SIZE = 20;
/** The largest CSV file an import takes, in bytes (5 MB). */
export const SUBSCRIBER_IMPORT_MAX_BYTES = 5 * 1024 * 1024;
/** The most rows (after the header) one import reads. */
export const SUBSCRIBER_IMPORT_MAX_ROWS = 50_000;
/**
 * The most confirmation mails one import without consent sends: each is sent before the answer,
 * as a subscribe's is, so a larger list is refused whole (split it, or import it with consent).
 */
export const SUBSCRIBER_IMPORT_CONFIRMATIONS_MAX = 500;
/** Header names an import takes for the address column (Ghost, Substack, Mailchimp), lowercased. */
export const SUBSCRIBER_EMAIL_HEADERS = ["email", "e-mail", "email address", "email_address"];

const statusList = SUBSCRIPTION_STATUSES.join(", ");

export const subscriberMessages = {
  statusInvalid: `Status must be one of ${statusList} (or left out for all)`,
  searchTooLong: `The search is at most ${String(EMAIL_MAX)} characters`,
  consentInvalid: "consent must be yes or no",
  notFound: "Subscriber not found",
  noFile:
    "Send the CSV file as the body with Content-Type: text/csv, or as the `file` field of a multipart form",
  tooLarge: "The file is larger than 5 MB: split it and import the parts one after another",
  tooManyRows: `The file has more than ${SUBSCRIBER_IMPORT_MAX_ROWS.toLocaleString("en-US")} rows: split it and import the parts one after another`,
  noEmailColumn:
    "The file's first row has no email column: it must name the columns, one of them email",
  notCsv: "The file is not valid CSV",
  tooManyConfirmations: `Without consent=yes an import mails a confirmation to each new address, at most ${String(SUBSCRIBER_IMPORT_CONFIRMATIONS_MAX)} at a time: split the file, or import it with consent=yes if these people agreed to get your posts`,
} as const;

/** Why an import left a row out (`skipped[].reason`). */
export const importSkipReasons = {
  invalid: "not a valid email address",
  unsubscribedInExport: "unsubscribed in the export",
  repeated: (line: number) => `the same address as line ${String(line)}`,
  active: "already subscribed",
  pending: "already waiting for its confirmation",
  unsubscribed: "unsubscribed here: only they can subscribe again",
  bounced: "bounced: no mail is sent to this address again",
} as const;

/** `?status=&q=`: every status and address when left out or empty. */
export const SubscribersFilterSchema = z.object({
  status: z
    .enum(["", ...SUBSCRIPTION_STATUSES], { error: subscriberMessages.statusInvalid })
    .optional()
    .describe("Only subscriptions in this state; all when left out"),
  q: z
    .string()
    .trim()
    .max(EMAIL_MAX, subscriberMessages.searchTooLong)
    .optional()
    .describe("Only addresses that contain this text (any case)"),
});

/** `GET /api/newsletter/subscribers?pageNumber=n&status=&q=`. */
export const SubscribersQuerySchema = SubscribersFilterSchema.extend({
  pageNumber: z
    .string()
    .regex(/^[1-9]\d{0,8}$/, "pageNumber must be a whole number from 1")
    .transform(Number)
    .default(1),
});

/** `consent=yes`: the people on the list agreed to get the posts, so they are subscribed at once. */
export const SubscriberImportOptionsSchema = z.object({
  consent: z
    .enum(["yes", "no"], { error: subscriberMessages.consentInvalid })
    .default("no")
    .describe(
      "yes: subscribed at once (they agreed elsewhere); no: each new address is mailed a confirmation",
    ),
});

/** One subscription as the owners' list shows it (DESIGN.md 11). */
export interface SubscriptionView {
  _id: string;
  email: string;
  scope: "site" | "author";
  /** Only on a writer's subscription. */
  authorId?: string;
  status: SubscriptionStatus;
  createdAt: string;
}

/** `GET /api/newsletter/subscribers`: a page, and how many match in all. */
export interface SubscriberListResponse {
  total: number;
  subscribers: SubscriptionView[];
}

/** `POST /api/newsletter/subscribers/import`. */
export interface SubscriberImportResponse {
  imported: number;
  skipped: { line: number; reason: string }[];
}
