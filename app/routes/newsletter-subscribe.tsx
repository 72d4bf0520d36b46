import { data, Link, useActionData } from "react-router";
import { newsletterSubscribePath } from "../../contract/page-paths.js";
import { subscribe } from "../../core/newsletter/subscriptions.js";
import { subscribeOwnAddress } from "../../core/newsletter/member-subscriptions.js";
import { getProfile } from "../../core/users/users-service.js";
import { attempt, formFields, limited } from "../features/forms/action.server.js";
import { SubscribeForm, type SubscribeScope } from "../features/newsletter/subscribe-form.js";
import { pageMeta } from "../meta.js";
import type { Route } from "./+types/newsletter-subscribe";

/**
 * Where every subscribe form posts (decision 028). With JavaScript the form shows the answer in
 * place; without it, this page does, with the form again (what was typed kept) after a refusal.
 * Opened on its own, it is the site's subscribe page.
 */
export function loader({ context }: Route.LoaderArgs) {
  return { site: context.site };
}

export async function action({ request, context }: Route.ActionArgs) {
  const tooMany = await limited(context, "subscribe");
  if (tooMany) return tooMany;
  const fields = await formFields(request);
  const authorId = fields.authorId ? fields.authorId : undefined;
  const email = (fields.email ?? "").slice(0, 320);
  // Whose posts, so a refusal can offer the same form again.
  const author = authorId
    ? await attempt(() => getProfile(context.deps, undefined, authorId, { withPosts: false }))
    : undefined;
  const scope: SubscribeScope =
    author?.ok === true
      ? { authorId: author.value._id, name: author.value.username }
      : { name: context.site.title };
  const viewer = context.viewer;
  // A member's one click: their account's address (at once when it is verified).
  const result = await attempt(() =>
    fields.own === "1" && viewer
      ? subscribeOwnAddress(context.deps, viewer.actor, authorId)
      : subscribe(context.deps, viewer?.actor, { email, authorId }),
  );
  return result.ok
    ? { ok: true as const, message: result.value.message, errors: {}, email: "", scope }
    : data({ ...result, email, scope }, { status: result.status });
}

export const meta = ({ loaderData }: Route.MetaArgs) =>
  pageMeta(loaderData.site, {
    title: "Subscribe",
    description: `New posts from ${loaderData.site.title} by e-mail.`,
    path: newsletterSubscribePath,
  });

export default function NewsletterSubscribe({ loaderData }: Route.ComponentProps) {
  const answer = useActionData<typeof action>();
  const scope = answer && "scope" in answer ? answer.scope : { name: loaderData.site.title };
  return (
    <section className="form-page">
      <h1>Subscribe to {scope.name}</h1>
      <SubscribeForm id="subscribe-page" scope={scope} answer={answer} />
      <p>
        <Link to="/">Back to the home page</Link>
      </p>
    </section>
  );
}
