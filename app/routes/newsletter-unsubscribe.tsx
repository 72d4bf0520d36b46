import { data, Link } from "react-router";
import { newsletterUnsubscribePath } from "../../contract/page-paths.js";
import { checkUnsubscribeToken } from "../../core/newsletter/subscriptions.js";
import { attempt } from "../features/forms/action.server.js";
import { pageMeta } from "../meta.js";
import type { Route } from "./+types/newsletter-unsubscribe";

/**
 * A newsletter's unsubscribe link lands here (decision 028). Opening it changes nothing: the
 * button posts to the same address, which the server answers as the mail's one-click header does
 * (RFC 8058), and sends the browser back here to say it is done.
 */
export async function loader({ context, params, request }: Route.LoaderArgs) {
  const result = await attempt(() => checkUnsubscribeToken(context.deps, params.token));
  const done = new URL(request.url).searchParams.get("done") === "1";
  return data({ site: context.site, valid: result.ok, done }, { status: result.ok ? 200 : 404 });
}

export const meta = ({ loaderData }: Route.MetaArgs) => [
  ...pageMeta(loaderData.site, {
    title: "Unsubscribe",
    description: "Stop new posts by e-mail.",
    path: "/",
  }),
  { name: "robots", content: "noindex" },
];

export default function NewsletterUnsubscribe({ loaderData, params }: Route.ComponentProps) {
  if (!loaderData.valid) {
    return (
      <section className="notice-page">
        <h1>This unsubscribe link is not valid</h1>
        <p>
          Reply to the mail you got and ask to be removed, or use the link of a newer mail.{" "}
          <Link to="/">Home</Link>
        </p>
      </section>
    );
  }
  if (loaderData.done) {
    return (
      <section className="notice-page">
        <h1>You are unsubscribed</h1>
        <p role="status">No more posts will be e-mailed to you.</p>
      </section>
    );
  }
  return (
    <section className="notice-page">
      <h1>Stop getting new posts by e-mail?</h1>
      {/* A plain form: the server's one-click address takes it, with or without scripts. */}
      <form method="post" action={newsletterUnsubscribePath(params.token)}>
        <button type="submit" className="button">
          Unsubscribe
        </button>
      </form>
    </section>
  );
}
