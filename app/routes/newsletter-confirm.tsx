import { data, Form, Link, useActionData, useNavigation } from "react-router";
import { checkConfirmLink, confirmSubscription } from "../../core/newsletter/subscriptions.js";
import { attempt, fail, limited } from "../features/forms/action.server.js";
import { pageMeta } from "../meta.js";
import type { Route } from "./+types/newsletter-confirm";

/**
 * A confirmation mail's link lands here (decision 028). Opening it changes nothing (mail scanners
 * open every link): the button confirms.
 */
export async function loader({ context, params }: Route.LoaderArgs) {
  const result = await attempt(() => checkConfirmLink(context.deps, params.id, params.token));
  return data({ site: context.site, valid: result.ok }, { status: result.ok ? 200 : 404 });
}

export async function action({ context, params }: Route.ActionArgs) {
  const tooMany = await limited(context, "unsubscribe");
  if (tooMany) return tooMany;
  const result = await attempt(() => confirmSubscription(context.deps, params.id, params.token));
  return result.ok
    ? { ok: true as const, message: result.value.message, errors: {} }
    : fail(result);
}

export const meta = ({ loaderData }: Route.MetaArgs) => [
  ...pageMeta(loaderData.site, {
    title: "Confirm your subscription",
    description: "New posts by e-mail.",
    path: "/",
  }),
  { name: "robots", content: "noindex" },
];

export default function NewsletterConfirm({ loaderData }: Route.ComponentProps) {
  const result = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  if (!loaderData.valid) {
    return (
      <section className="notice-page">
        <h1>This link is not valid or has expired</h1>
        <p>
          Subscribe again from <Link to="/">the home page</Link>: a new mail comes with a new link.
        </p>
      </section>
    );
  }
  if (result?.ok) {
    return (
      <section className="notice-page">
        <h1>You are subscribed</h1>
        <p role="status">{result.message}. New posts will reach your inbox.</p>
        <p>
          <Link to="/">Read what is already here</Link>
        </p>
      </section>
    );
  }
  return (
    <section className="notice-page">
      <h1>Confirm your subscription?</h1>
      <p>
        New posts will be e-mailed to you as they are published. No opens or clicks are tracked.
      </p>
      <Form method="post">
        {result ? <p role="alert">{result.message}</p> : null}
        <button type="submit" className="button" disabled={busy}>
          Confirm subscription
        </button>
      </Form>
    </section>
  );
}
