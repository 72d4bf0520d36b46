import { useEffect, useRef } from "react";
import { Form, useActionData, useNavigation } from "react-router";
import {
  integrationMessages,
  WEBHOOK_EVENTS,
  WEBHOOK_URL_MAX,
} from "../../../contract/integrations.js";
import {
  createWebhook,
  deleteWebhook,
  listDeliveries,
  listWebhooks,
  sendTestEvent,
} from "../../../core/integrations/webhooks.js";
import { invalid } from "../../../core/shared/errors.js";
import { requireAdmin } from "../../features/admin/guard.server.js";
import { attempt, fail, limited } from "../../features/forms/action.server.js";
import { Field } from "../../features/forms/field.js";
import { FormAlert } from "../../features/forms/form-alert.js";
import type { ActionResult } from "../../features/forms/form-state.js";
import { RowAction } from "../../features/forms/row-action.js";
import { NewSecret } from "../../features/settings/new-secret.js";
import settingsStyles from "../../features/settings/settings.css?url";
import { pageMeta } from "../../meta.js";
import { ConfirmDelete } from "../../ui/confirm-delete.js";
import { dateTime } from "../../ui/format.js";
import { useToastOn } from "../../ui/toasts.js";
import type { Route } from "./+types/webhooks";

const PATH = "/admin-dashboard/webhooks";
export const links: Route.LinksFunction = () => [{ rel: "stylesheet", href: settingsStyles }];

export async function loader({ context }: Route.LoaderArgs) {
  const { actor } = requireAdmin(context);
  const webhooks = await listWebhooks(context.deps, actor);
  // Each webhook's latest page of deliveries; the API pages through the rest.
  const withDeliveries = await Promise.all(
    webhooks.map(async (webhook) => ({
      ...webhook,
      deliveries: await listDeliveries(context.deps, actor, webhook._id),
    })),
  );
  return { site: context.site, webhooks: withDeliveries };
}

type Intent = "webhook-create" | "webhook-remove" | "webhook-test";

export async function action({ request, context }: Route.ActionArgs) {
  const { actor } = requireAdmin(context);
  // Several checkboxes share a name: read the form whole rather than as one value per field.
  const form = await request.formData().catch(() => undefined);
  const text = (name: string) => {
    const value = form?.get(name);
    return typeof value === "string" ? value : "";
  };
  const intent = text("intent") as Intent;
  if (intent !== "webhook-remove") {
    const tooMany = await limited(context, "integrations");
    if (tooMany) return tooMany;
  }
  const { deps } = context;
  const result = await attempt(async (): Promise<{ message: string; secret?: string }> => {
    switch (intent) {
      case "webhook-create": {
        const events = (form?.getAll("events") ?? []).filter(
          (value): value is string => typeof value === "string",
        );
        const made = await createWebhook(deps, actor, { url: text("url"), events });
        return { message: integrationMessages.webhookCreated, secret: made.secret };
      }
      case "webhook-remove":
        await deleteWebhook(deps, actor, text("id"));
        return { message: integrationMessages.webhookRemoved };
      case "webhook-test":
        await sendTestEvent(deps, actor, text("id"));
        return { message: integrationMessages.testQueued };
      default:
        throw invalid("Unknown action");
    }
  });
  return result.ok
    ? { ok: true as const, intent, errors: {}, ...result.value }
    : fail({ ...result, intent });
}

export const meta = ({ loaderData }: Route.MetaArgs) =>
  pageMeta(loaderData.site, {
    title: "Webhooks",
    description: "Tell other services about new posts, comments and members.",
    path: PATH,
  });

type Result = (ActionResult & { intent?: string; secret?: string }) | undefined;

const STATUS_LABEL = { pending: "Waiting", delivered: "Delivered", failed: "Failed" } as const;

export default function Webhooks({ loaderData }: Route.ComponentProps) {
  const result: Result = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  useToastOn(result);
  const errors = result && !result.ok ? (result.errors ?? {}) : {};
  const madeSecret = result?.ok ? result.secret : undefined;
  // Once the webhook is made its form starts afresh, as the token form does.
  const addForm = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (madeSecret) addForm.current?.reset();
  }, [madeSecret]);
  return (
    <div className="security-page">
      <h1 className="page-title">Webhooks</h1>
      <p>
        A webhook POSTs each event you pick to an address of yours, signed as the{" "}
        <a href="https://www.standardwebhooks.com/">Standard Webhooks</a> specification says, and
        tries again for a day when it gets no 2xx answer. The <a href="/api/docs">API reference</a>{" "}
        describes the events.
      </p>
      <FormAlert result={result} />
      {madeSecret ? (
        <NewSecret
          title="Copy the signing secret now."
          value={madeSecret}
          copyName="Copy the signing secret"
        />
      ) : null}

      {loaderData.webhooks.length === 0 ? <p className="empty">No webhooks yet.</p> : null}
      {loaderData.webhooks.map((webhook) => (
        <section className="card form" key={webhook._id} aria-label={`Webhook ${webhook.url}`}>
          <h2 className="webhook-url">{webhook.url}</h2>
          <p className="security-meta">
            {webhook.events.join(", ")} · added{" "}
            <time dateTime={webhook.createdAt}>{dateTime(webhook.createdAt)}</time>
          </p>
          <div className="row-actions">
            <RowAction
              intent="webhook-test"
              id={webhook._id}
              label="Send a test event"
              name={`Send a test event to ${webhook.url}`}
              busy={busy}
            />
            <ConfirmDelete
              what="webhook"
              label="Remove"
              name={`Remove webhook ${webhook.url}`}
              fields={{ intent: "webhook-remove", id: webhook._id }}
              className="button button-small button-danger"
            />
          </div>
          <Deliveries deliveries={webhook.deliveries} />
        </section>
      ))}

      <Form method="post" className="card form" aria-labelledby="webhook-add-title" ref={addForm}>
        <h2 id="webhook-add-title">Add a webhook</h2>
        <input type="hidden" name="intent" value="webhook-create" />
        <Field
          label="URL"
          name="url"
          type="url"
          id="field-webhook-url"
          maxLength={WEBHOOK_URL_MAX}
          placeholder="https://example.com/hooks/blog"
          error={result?.intent === "webhook-create" ? errors.url : undefined}
        />
        <fieldset className="settings-group">
          <legend>Events</legend>
          {WEBHOOK_EVENTS.map((event) => (
            <label className="settings-choice" key={event}>
              <input type="checkbox" name="events" value={event} defaultChecked />
              <span>{event}</span>
            </label>
          ))}
          {result?.intent === "webhook-create" && errors.events ? (
            <p className="field-error">{errors.events}</p>
          ) : null}
        </fieldset>
        <button type="submit" className="button" disabled={busy}>
          Add webhook
        </button>
      </Form>
    </div>
  );
}

type Delivery = Route.ComponentProps["loaderData"]["webhooks"][number]["deliveries"][number];

/** A webhook's latest deliveries and what each got back. */
function Deliveries({ deliveries }: { deliveries: Delivery[] }) {
  return deliveries.length === 0 ? (
    <p>No deliveries yet.</p>
  ) : (
    <div className="table-scroll">
      <table className="admin-table">
        <caption>Recent deliveries</caption>
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">Status</th>
            <th scope="col">Answer</th>
            <th scope="col">Tries</th>
            <th scope="col">Last try</th>
          </tr>
        </thead>
        <tbody>
          {deliveries.map((delivery) => (
            <tr key={delivery._id}>
              <td data-label="Event" className="keep-words">
                {delivery.event}
              </td>
              <td data-label="Status" className="keep-words">
                {STATUS_LABEL[delivery.status]}
              </td>
              <td data-label="Answer" className="keep-words">
                {delivery.responseStatus ?? "none"}
              </td>
              <td data-label="Tries" className="keep-words">
                {delivery.attempts}
              </td>
              <td data-label="Last try">
                {delivery.lastAttemptAt ? (
                  <time dateTime={delivery.lastAttemptAt}>{dateTime(delivery.lastAttemptAt)}</time>
                ) : (
                  "not yet"
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
