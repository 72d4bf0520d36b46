import { data, Form, Link, useActionData, useNavigation } from "react-router";
import { checkUnsubscribeLink, unsubscribe } from "../../core/conversation-mail/unsubscribe.js";
import { attempt, fail, limited } from "../features/forms/action.server.js";
import { pageMeta } from "../meta.js";
import type { Route } from "./+types/unsubscribe";

/**
 * A mail's unsubscribe link lands here. Opening it changes nothing (mail scanners open every
 * link): the button does, with no sign-in needed, as the mail's one-click header does (RFC 8058).
 */
export async function loader({ context, params }: Route.LoaderArgs) {
  const result = await attempt(() =>
    checkUnsubscribeLink(context.deps, params.userId, params.token),
  );
  return data({ site: context.site, valid: result.ok }, { status: result.ok ? 200 : 404 });
}

export async function action({ context, params }: Route.ActionArgs) {
  const tooMany = await limited(context, "unsubscribe");
  if (tooMany) return tooMany;
  const result = await attempt(() => unsubscribe(context.deps, params.userId, params.token));
  return result.ok
    ? { ok: true as const, message: result.value.message, errors: {} }
    : fail(result);
}

export const meta = ({ loaderData }: Route.MetaArgs) => [
  ...pageMeta(loaderData.site, {
    title: "Unsubscribe",
    description: "Stop emails about conversations.",
    path: "/",
  }),
  { name: "robots", content: "noindex" },
];

export default function Unsubscribe({ loaderData }: Route.ComponentProps) {
  const result = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  if (!loaderData.valid) {
    return (
      <section className="notice-page">
        <h1>This unsubscribe link is not valid</h1>
        <p>
          Sign in and turn conversation emails off in your <Link to="/settings">settings</Link>.
        </p>
      </section>
    );
  }
  if (result?.ok) {
    return (
      <section className="notice-page">
        <h1>You are unsubscribed</h1>
        <p role="status">{result.message}.</p>
        <p>
          Changed your mind? Turn it back on in your <Link to="/settings">settings</Link>.
        </p>
      </section>
    );
  }
  return (
    <section className="notice-page">
      <h1>Unsubscribe from conversation emails?</h1>
      <p>
        You get a mail when someone comments on your posts or replies to your comments, at most one
        every ten minutes.
      </p>
      <Form method="post">
        {result ? <p role="alert">{result.message}</p> : null}
        <button type="submit" className="button" disabled={busy}>
          Unsubscribe
        </button>
      </Form>
    </section>
  );
}
