import { Form, Link, useActionData, useNavigation } from "react-router";
import { getSettings, updateSettings } from "../../core/user-settings/user-settings-service.js";
import { requireViewer } from "../features/auth/guards.server.js";
import { attempt, fail, formFields } from "../features/forms/action.server.js";
import { FormAlert } from "../features/forms/form-alert.js";
import settingsStyles from "../features/settings/settings.css?url";
import { pageMeta } from "../meta.js";
import { useToastOn } from "../ui/toasts.js";
import type { Route } from "./+types/settings";

export const links: Route.LinksFunction = () => [{ rel: "stylesheet", href: settingsStyles }];

export async function loader({ context }: Route.LoaderArgs) {
  const viewer = requireViewer(context, "/settings");
  return { site: context.site, settings: await getSettings(context.deps, viewer.actor) };
}

export async function action({ request, context }: Route.ActionArgs) {
  const viewer = requireViewer(context);
  const fields = await formFields(request);
  // A checkbox sends its value only when ticked.
  const result = await attempt(() =>
    updateSettings(context.deps, viewer.actor, {
      emailNotifications: fields.emailNotifications === "on",
    }),
  );
  return result.ok ? { ok: true as const, message: "Settings saved", errors: {} } : fail(result);
}

export const meta = ({ loaderData }: Route.MetaArgs) => [
  ...pageMeta(loaderData.site, {
    title: "Settings",
    description: "Your settings.",
    path: "/settings",
  }),
  { name: "robots", content: "noindex" },
];

export default function Settings({ loaderData }: Route.ComponentProps) {
  const result = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  useToastOn(result);
  return (
    <section className="form-page">
      <h1>Settings</h1>
      <p>
        <Link to="/settings/security">Security</Link>: two-factor sign-in, passkeys and the devices
        signed in to your account.
      </p>
      <Form method="post" className="card form">
        <FormAlert result={result} />
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
        {result?.ok ? <p role="status">{result.message}</p> : null}
      </Form>
    </section>
  );
}
