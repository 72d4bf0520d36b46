import { deliverMail, gatherDueMail, mailRules } from "../conversation-mail/outbox.js";
import type { CoreDeps } from "../deps.js";
import { dispatchEvent, eventRules } from "../events/dispatch.js";
import { deliverWebhook, webhookRules } from "../integrations/webhooks.js";
import { deliverNewsletter, newsletterChores, newsletterRules } from "../newsletter/sending.js";
import type { OutboxChannel } from "../../db/schema.js";
import type { ChannelRules, OutboxItem, TryOutcome } from "./outbox.js";

/** One channel of the outbox: its rules and how one of its rows is tried. */
export interface Channel {
  name: OutboxChannel;
  rules: ChannelRules;
  /** Run before each look for due rows (conversation mail gathers its digests into rows). */
  prepare?: (deps: CoreDeps) => Promise<number>;
  /** One try. "settled": the try recorded its own outcome (in its own transaction). */
  send: (deps: CoreDeps, item: OutboxItem) => Promise<TryOutcome | "settled">;
  /** Tries of one claim made side by side (one slow receiver does not hold the others). */
  sideBySide: boolean;
  /** Logged when a try fails (webhooks show theirs on the admin's page instead). */
  failure?: string;
}

/**
 * The channels, in the order each look serves them (decision 027): events first, so what their
 * dispatch queues goes out in the same look.
 */
export const channels: readonly Channel[] = [
  {
    name: "event",
    rules: eventRules,
    send: dispatchEvent,
    sideBySide: false,
    failure: "could not dispatch an event; it will be retried",
  },
  {
    name: "mail",
    rules: mailRules,
    prepare: (deps) => gatherDueMail(deps),
    send: deliverMail,
    sideBySide: false,
    failure: "could not send a conversation mail; it will be retried",
  },
  {
    name: "webhook",
    rules: webhookRules,
    send: deliverWebhook,
    sideBySide: true,
  },
  {
    name: "newsletter",
    rules: newsletterRules,
    prepare: newsletterChores,
    send: deliverNewsletter,
    // A claim's mails share the pacer, which spaces their starts: one at a time, each mail's SMTP
    // round trips (~50 ms even on loopback) held the lane far below NEWSLETTER_RATE.
    sideBySide: true,
    failure: "could not send a newsletter mail; it will be retried",
  },
];
