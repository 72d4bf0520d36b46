import { z } from "./zod.js";

// Integrations (DESIGN.md 10, "Integrations"; decision 025): personal API tokens and webhooks.

export const TOKEN_PREFIX = "blog_";
export const WEBHOOK_SECRET_PREFIX = "whsec_";
export const TOKEN_NAME_MAX = 60;
/** A person needs a handful (a laptop script, a CI job, a static-site build); a list of hundreds is a leak waiting. */
export const TOKENS_PER_USER_MAX = 50;
export const WEBHOOK_URL_MAX = 2000;
export const WEBHOOKS_MAX = 50;

export const TOKEN_SCOPES = ["read", "write"] as const;
export const WEBHOOK_EVENTS = [
  "post.published",
  "post.updated",
  "post.deleted",
  "comment.created",
  "user.created",
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
/** What "Send a test event" sends: not one of the events an endpoint picks. */
export const TEST_EVENT = "webhook.test";

export const integrationMessages = {
  tokenNameRequired: "Name is required",
  tokenNameTooLong: `Name must be at most ${String(TOKEN_NAME_MAX)} characters`,
  tokenScope: 'Scope must be "read" or "write"',
  tooManyTokens: `You can have at most ${String(TOKENS_PER_USER_MAX)} API tokens; revoke one first`,
  tokenNotFound: "Token not found",
  tokenCreated: "Token created: copy it now, it will not be shown again",
  tokenRevoked: "Token revoked",
  readOnlyToken: "This API token can only read",
  signInAgain:
    "For your safety, sign in again to create an API token: your last sign-in was over 15 minutes ago",
  notWithToken: "API tokens cannot change the account: sign in to do this",
  webhookUrlRequired: "URL is required",
  webhookUrlInvalid: "URL must be an http:// or https:// address",
  webhookUrlPrivate: "URL must point at a public address, not a private or local network",
  webhookUrlUnresolved: "URL's host name could not be found",
  webhookEventsRequired: "Choose at least one event",
  webhookEventUnknown: `Unknown event: events are ${WEBHOOK_EVENTS.join(", ")}`,
  tooManyWebhooks: `A site can have at most ${String(WEBHOOKS_MAX)} webhooks; remove one first`,
  webhookNotFound: "Webhook not found",
  webhookCreated: "Webhook added: copy its secret now, it will not be shown again",
  webhookRemoved: "Webhook removed",
  testQueued: "Test event queued: its delivery shows below once tried",
  tokenInvalid: "This API token is not valid: it was revoked, or never existed",
} as const;

const m = integrationMessages;

/** `POST /api/tokens`. */
export const TokenCreateSchema = z.object({
  name: z
    .string({ error: m.tokenNameRequired })
    .trim()
    .min(1, m.tokenNameRequired)
    .max(TOKEN_NAME_MAX, m.tokenNameTooLong),
  scope: z.enum(TOKEN_SCOPES, { error: m.tokenScope }),
});

/** `POST /api/webhooks`: the address is checked further (its network) by the service. */
export const WebhookCreateSchema = z.object({
  url: z
    .string({ error: m.webhookUrlRequired })
    .trim()
    .min(1, m.webhookUrlRequired)
    .max(WEBHOOK_URL_MAX, m.webhookUrlInvalid)
    .refine((value) => {
      try {
        const url = new URL(value);
        return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
      } catch {
        return false;
      }
    }, m.webhookUrlInvalid),
  events: z
    .array(z.enum(WEBHOOK_EVENTS, { error: m.webhookEventUnknown }), {
      error: m.webhookEventsRequired,
    })
    .min(1, m.webhookEventsRequired)
    .max(WEBHOOK_EVENTS.length * 2, m.webhookEventUnknown),
});
