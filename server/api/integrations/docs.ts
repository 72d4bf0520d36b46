import { TokenCreateSchema, WebhookCreateSchema } from "../../../contract/integrations.js";
import { PageQuerySchema } from "../../../contract/content.js";
import {
  ApiTokenListSchema,
  NewApiTokenSchema,
  NewWebhookSchema,
  WebhookDeliveryListSchema,
  WebhookDeliverySchema,
  WebhookListSchema,
} from "../../../contract/responses.js";
import type { RouteDocs } from "../openapi/route-docs.js";

const tokens = "tokens";
const webhooks = "webhooks";
const webhookId = { id: "The webhook's id" };

/** The API reference's entries for server/api/integrations/routes.ts (decision 025). */
export const integrationDocs = {
  createToken: {
    summary: "Create a personal API token",
    description:
      "For scripts and CI jobs: send it as `Authorization: Bearer blog_…`. `read` allows GET calls " +
      "only; `write` everything but account changes (e-mail, password, tokens, two-factor sign-in, " +
      "passkeys, sessions, deleting the account). The token is in this answer alone and stored as a " +
      "hash. Needs a sign-in within 15 minutes.",
    access: "session",
    tag: tokens,
    body: TokenCreateSchema,
    response: { status: 201, description: "The token, shown once", schema: NewApiTokenSchema },
    errors: {
      403: "An API token, or a sign-in over 15 minutes old",
      409: "Too many tokens: revoke one first",
    },
  },
  listTokens: {
    summary: "List your API tokens",
    description: "Newest first, without the tokens themselves.",
    access: "session",
    tag: tokens,
    response: { status: 200, description: "Your tokens", schema: ApiTokenListSchema },
  },
  revokeToken: {
    summary: "Revoke an API token",
    description: "It stops working at once, on every instance.",
    access: "session",
    tag: tokens,
    params: { id: "The token's id" },
    response: { status: 204, description: "Revoked" },
    errors: { 404: "No such token of yours" },
  },
  createWebhook: {
    summary: "Add a webhook",
    description:
      "Events are POSTed to `url` as `{type, timestamp, data}`, signed as the Standard Webhooks " +
      "specification says (`webhook-id`, `webhook-timestamp`, `webhook-signature`), retried with " +
      "backoff for 24 hours on a non-2xx answer or a 10-second timeout. Addresses on loopback, " +
      "private and link-local networks are refused (unless the server allows them). The secret is " +
      "in this answer alone.",
    access: "admin",
    tag: webhooks,
    body: WebhookCreateSchema,
    response: { status: 201, description: "The webhook and its secret", schema: NewWebhookSchema },
    errors: {
      400: "Not an http(s) URL, a private address, a name that does not resolve, or an unknown event",
      409: "Too many webhooks: remove one first",
    },
  },
  listWebhooks: {
    summary: "List webhooks",
    access: "admin",
    tag: webhooks,
    response: {
      status: 200,
      description: "Every webhook, without secrets",
      schema: WebhookListSchema,
    },
  },
  deleteWebhook: {
    summary: "Remove a webhook",
    description: "Deliveries still waiting are not sent.",
    access: "admin",
    tag: webhooks,
    params: webhookId,
    response: { status: 204, description: "Removed" },
    errors: { 404: "No such webhook" },
  },
  deliveries: {
    summary: "A webhook's recent deliveries",
    description:
      "Newest first, 20 a page; `responseStatus` is the receiver's last answer (null: none).",
    access: "admin",
    tag: webhooks,
    params: webhookId,
    query: PageQuerySchema,
    response: { status: 200, description: "Deliveries", schema: WebhookDeliveryListSchema },
    errors: { 404: "No such webhook" },
  },
  test: {
    summary: "Send a test event",
    description: "Queues a `webhook.test` delivery to this webhook, sent like any other.",
    access: "admin",
    tag: webhooks,
    params: webhookId,
    response: { status: 201, description: "The delivery", schema: WebhookDeliverySchema },
    errors: { 404: "No such webhook" },
  },
} satisfies Record<string, RouteDocs>;
