import { useEffect, useRef } from "react";
import { Form, Link, useActionData, useNavigation } from "react-router";
import { integrationMessages, TOKEN_NAME_MAX } from "../../contract/integrations.js";
import {
  createApiToken,
  listApiTokens,
  revokeApiToken,
} from "../../core/integrations/api-tokens.js";
import { getSettings, updateSettings } from "../../core/user-settings/user-settings-service.js";
import {
  leaveOwnSubscription,
  ownSubscriptions,
  subscribeOwnAddress,
} from "../../core/newsletter/member-subscriptions.js";
import { invalid } from "../../core/shared/errors.js";
import { requireViewer } from "../features/auth/guards.server.js";
import { attempt, fail, formFields, limited } from "../features/forms/action.server.js";
import { Field } from "../features/forms/field.js";
import { FormAlert } from "../features/forms/form-alert.js";
import type { ActionResult } from "../features/forms/form-state.js";
import { OwnSubscriptions } from "../features/newsletter/own-subscriptions.js";
import { NewSecret } from "../features/settings/new-secret.js";
import settingsStyles from "../features/settings/settings.css?url";
import { pageMeta } from "../meta.js";
import { ConfirmDelete } from "../ui/confirm-delete.js";
import { useToastOn } from "../ui/toasts.js";
import { UseStamps } from "../ui/use-stamps.js";
import type { Route } from "./+types/settings";
import { API_TOKENS_ANCHOR } from "../../contract/page-paths.js";

export const links: Route.LinksFunction = () => [{ rel: "stylesheet", href: settingsStyles }];

export async function loader({ context }: Route.LoaderArgs) {
  const viewer = requireViewer(context, "/settings");
  const [settings, tokens, subscriptions] = await Promise.all([
    getSettings(context.deps, viewer.actor),
    listApiTokens(context.deps.db, viewer.actor.id),
    ownSubscriptions(context.deps, viewer.actor),
  ]);
  return { site: context.site, settings, tokens, subscriptions };
}

type Intent = "save" | "token-create" | "token-revoke" | "newsletter-join" | "newsletter-leave";

export async function action({ request, context }: Route.ActionArgs) {
  const viewer = requireViewer(context);
  const fields = await formFields(request);
  const intent = (fields.intent ?? "save") as Intent;
  const { deps } = context;
  if (intent === "token-create" || intent === "newsletter-join") {
    const tooMany = await limited(
      context,
      intent === "token-create" ? "integrations" : "subscribe",
    );
    if (tooMany) return tooMany;
  }
  const result = await attempt(async (): Promise<{ message: string; token?: string }> => {
    switch (intent) {
      case "token-create": {
        const made = await createApiToken(deps, viewer.actor.id, viewer, {
          name: fields.name ?? "",
          scope: fields.scope ?? "",
        });
        return { message: integrationMessages.tokenCreated, token: made.token };
      }
      case "token-revoke":
        await revokeApiToken(deps.db, viewer.actor.id, fields.id ?? "");
        return { message: integrationMessages.tokenRevoked };
      case "newsletter-join":
        return subscribeOwnAddress(deps, viewer.actor);
      case "newsletter-leave":
        return leaveOwnSubscription(deps, viewer.actor, fields.id ?? "");
      case "save":
        // A checkbox sends its value only when ticked.
        await updateSettings(deps, viewer.actor, {
          emailNotifications: fields.emailNotifications === "on",
        });
        return { message: "Settings saved" };
      default:
        throw invalid("Unknown action");
    }
  });
  return result.ok
    ? { ok: true as const, intent, errors: {}, ...result.value }
    : fail({ ...result, intent });
}

export const meta = ({ loaderData }: Route.MetaArgs) => [
  ...pageMeta(loaderData.site, {
    title: "Settings",
    description: "Your settings.",
    path: "/settings",
  }),
  { name: "robots", content: "noindex" },
];

type Result = (ActionResult & { intent?: string; token?: string }) | undefined;

export default function Settings({ loaderData }: Route.ComponentProps) {
  const result: Result = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  useToastOn(result);
  const tokenResult = result?.intent?.startsWith("token") ? result : undefined;
  const newsletterResult = result?.intent?.startsWith("newsletter") ? result : undefined;
  const { subscriptions, site } = loaderData;
  const tokenErrors = tokenResult && !tokenResult.ok ? (tokenResult.errors ?? {}) : {};
  const madeToken = tokenResult?.ok ? tokenResult.token : undefined;
  // The form keeps what was typed across the answer; once the token is made it starts afresh
  // (without JavaScript the answer is a new page, empty already).
  const tokenForm = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (madeToken) tokenForm.current?.reset();
  }, [madeToken]);
  return (
    <section className="form-page security-page">
      <h1>Settings</h1>
      <p>
        <Link to="/settings/security">Security</Link>: two-factor sign-in, passkeys and the devices
        signed in to your account.
      </p>
      <Form method="post" className="card form">
        <input type="hidden" name="intent" value="save" />
        {tokenResult || newsletterResult ? null : <FormAlert result={result} />}
        <fieldset className="settings-group">
          <legend>Email</legend>
          <label className="settings-choice">
            <input
              type="checkbox"
              name="emailNotifications"
              defaultChecked={loaderData.settings.emailNotifications}
            />
            <span>
              Email me about new comments on my posts and replies to my comments (at most one mail
              every ten minutes)
            </span>
          </label>
        </fieldset>
        <button type="submit" className="button" disabled={busy}>
          Save settings
        </button>
        {result?.ok && !tokenResult && !newsletterResult ? (
          <p role="status">{result.message}</p>
        ) : null}
      </Form>

      <OwnSubscriptions
        subscriptions={subscriptions}
        siteTitle={site.title}
        result={newsletterResult}
        busy={busy}
      />

      <section className="card form" id={API_TOKENS_ANCHOR} aria-labelledby="tokens-title">
        <h2 id="tokens-title">API tokens</h2>
        <p>
          A token lets a script, a CI job or a static-site build use the API as you, without your
          password: send it as <code>Authorization: Bearer blog_…</code>. A read token can only
          read; a write token can also publish and edit, but never change your e-mail, password or
          security settings. See <a href="/api/docs">the API reference</a>.
        </p>
        {tokenResult ? <FormAlert result={tokenResult} /> : null}
        {madeToken ? (
          <NewSecret title="Copy your new token now." value={madeToken} copyName="Copy the token" />
        ) : null}
        {loaderData.tokens.length > 0 ? (
          <ul className="security-list">
            {loaderData.tokens.map((token) => (
              <li key={token._id}>
                <div>
                  <strong>{token.name}</strong>
                  <span className="badge">{token.scope === "read" ? "Read" : "Write"}</span>
                  <UseStamps
                    made="Created"
                    madeAt={token.createdAt}
                    lastUsedAt={token.lastUsedAt}
                  />
                </div>
                <ConfirmDelete
                  what="token"
                  label="Revoke"
                  name={`Revoke token ${token.name}`}
                  fields={{ intent: "token-revoke", id: token._id }}
                  className="button button-small button-danger"
                  warning={`Scripts using “${token.name}” stop working at once, and a revoked token cannot be restored.`}
                  confirm="Revoke"
                />
              </li>
            ))}
          </ul>
        ) : (
          <p>No tokens yet.</p>
        )}
        <Form method="post" className="form" ref={tokenForm}>
          <input type="hidden" name="intent" value="token-create" />
          <Field
            label="Token name"
            name="name"
            id="field-token-name"
            maxLength={TOKEN_NAME_MAX}
            hint="What it is for, e.g. “Publish from CI”"
            error={tokenErrors.name}
          />
          <fieldset className="settings-group">
            <legend>Access</legend>
            <label className="settings-choice">
              <input type="radio" name="scope" value="read" defaultChecked />
              <span>Read: GET calls only</span>
            </label>
            <label className="settings-choice">
              <input type="radio" name="scope" value="write" />
              <span>Write: publish, edit and comment as you</span>
            </label>
          </fieldset>
          <button type="submit" className="button" disabled={busy}>
            Create token
          </button>
        </Form>
      </section>
    </section>
  );
}
