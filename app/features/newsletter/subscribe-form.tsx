import { useFetcher, useRouteLoaderData } from "react-router";
import { newsletterSubscribePath } from "../../../contract/page-paths.js";
import { Field } from "../forms/field.js";
import { FormAlert } from "../forms/form-alert.js";
import { useClientValidation, type ActionResult } from "../forms/form-state.js";
import type { loader as rootLoader } from "../../root.js";

/** Whose posts a form subscribes to: the whole site, or one writer's. */
export interface SubscribeScope {
  /** The writer's id; none for the whole site. */
  authorId?: string | undefined;
  /** Who the mail comes from, said in the heading: the site's title or the writer's name. */
  name: string;
}

/**
 * Subscribing by e-mail (decision 028): a plain form posted to the subscribe page, which answers
 * on a page of its own without JavaScript; with it, the answer shows here. `choices` offers the
 * writer's posts or the whole site (a post's end), the first chosen.
 */
export function SubscribeForm(props: {
  scope: SubscribeScope;
  choices?: readonly SubscribeScope[];
  /** Tells forms on one page apart (their fields' ids). */
  id: string;
  /** The subscribe page's answer to a form sent without JavaScript, and what was typed. */
  answer?: (ActionResult & { email?: string }) | undefined;
}) {
  const fetcher = useFetcher<ActionResult>();
  const result = fetcher.data ?? props.answer;
  const { errors, form } = useClientValidation(
    () => import("../../../contract/newsletter.js").then((m) => m.subscribeSchema),
    result?.errors,
  );
  const choices = props.choices ?? [props.scope];
  // A member subscribes their account's address in one click; the page stays the same for every
  // member (a shell), as the address is read by the action, not written here.
  const member = useRouteLoaderData<typeof rootLoader>("root")?.member ?? false;
  return (
    <section className="card subscribe" aria-labelledby={`${props.id}-title`}>
      <h2 id={`${props.id}-title`}>Get new posts by e-mail</h2>
      <fetcher.Form
        method="post"
        action={newsletterSubscribePath}
        noValidate
        {...(member ? {} : form)}
        className="form subscribe-form"
      >
        {choices.length > 1 ? (
          <fieldset className="fieldset subscribe-choices">
            <legend>Send me</legend>
            {choices.map((choice, index) => (
              <label key={choice.authorId ?? "site"} className="radio-label">
                <input
                  type="radio"
                  name="authorId"
                  value={choice.authorId ?? ""}
                  defaultChecked={index === 0}
                />{" "}
                {choice.authorId ? `${choice.name}'s posts` : `Everything on ${choice.name}`}
              </label>
            ))}
          </fieldset>
        ) : (
          <input type="hidden" name="authorId" value={props.scope.authorId ?? ""} />
        )}
        <p className="muted subscribe-intro">
          {choices.length > 1
            ? "Each new post in your inbox."
            : `Each new post from ${props.scope.name} in your inbox.`}{" "}
          {member ? "Sent to your account's address" : "No account needed"}; we never track whether
          you open a mail or click in it, and every mail has a link to leave.
        </p>
        <FormAlert result={result} />
        {member ? (
          <div className="subscribe-row">
            <input type="hidden" name="own" value="1" />
            <button type="submit" className="button" disabled={fetcher.state !== "idle"}>
              Subscribe with my account&apos;s address
            </button>
          </div>
        ) : (
          <div className="subscribe-row">
            <Field
              label="Email"
              name="email"
              id={`${props.id}-email`}
              type="email"
              autoComplete="email"
              defaultValue={props.answer?.ok === false ? props.answer.email : undefined}
              error={errors.email}
            />
            <button type="submit" className="button" disabled={fetcher.state !== "idle"}>
              Subscribe
            </button>
          </div>
        )}
        {result?.ok ? (
          <p role="status" className="notice">
            {result.message}
          </p>
        ) : null}
      </fetcher.Form>
    </section>
  );
}
