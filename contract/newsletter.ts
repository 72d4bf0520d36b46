import { z } from "zod";
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
