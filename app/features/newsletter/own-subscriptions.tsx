import { Form, Link } from "react-router";
import { newsletterSubscribersPath } from "../../../contract/page-paths.js";
import type { OwnSubscription } from "../../../core/newsletter/member-subscriptions.js";
import { FormAlert } from "../forms/form-alert.js";
import type { ActionResult } from "../forms/form-state.js";
import { RowAction } from "../forms/row-action.js";

/**
 * Settings' newsletters (decision 028): the member's subscriptions, each with a button to leave,
 * and the site's in one click when they have none to it.
 */
export function OwnSubscriptions(props: {
  subscriptions: readonly OwnSubscription[];
  siteTitle: string;
  result: ActionResult | undefined;
  busy: boolean;
}) {
  const { subscriptions, result, busy } = props;
  const site = { title: props.siteTitle };
  const toSite = subscriptions.find((subscription) => subscription.scope === "site");
  return (
    <section className="card form" aria-labelledby="newsletters-title">
      <h2 id="newsletters-title">Newsletters</h2>
      <p>
        New posts e-mailed to your account&apos;s address. Subscribe to a writer from their page;
        every mail has a link to leave. No opens or clicks are tracked. Who gets your own posts:{" "}
        <Link to={newsletterSubscribersPath}>your subscribers</Link>.
      </p>
      {result ? <FormAlert result={result} /> : null}
      {result?.ok ? <p role="status">{result.message}</p> : null}
      {subscriptions.length > 0 ? (
        <ul className="security-list">
          {subscriptions.map((subscription) => {
            const what =
              subscription.scope === "site"
                ? `Everything on ${site.title}`
                : `${subscription.authorName ?? ""}'s posts`;
            return (
              <li key={subscription._id}>
                <div>
                  <strong>{what}</strong>
                  {subscription.status === "pending" ? (
                    <span className="badge">Waiting for your confirmation</span>
                  ) : null}
                </div>
                <RowAction
                  intent="newsletter-leave"
                  id={subscription._id}
                  label="Unsubscribe"
                  name={`Unsubscribe from ${what}`}
                  busy={busy}
                />
              </li>
            );
          })}
        </ul>
      ) : (
        <p>No subscriptions yet.</p>
      )}
      {toSite ? null : (
        <Form method="post">
          <input type="hidden" name="intent" value="newsletter-join" />
          <button type="submit" className="button" disabled={busy}>
            Subscribe to {site.title}
          </button>
        </Form>
      )}
    </section>
  );
}
