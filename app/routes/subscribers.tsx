import { Form, Link, useActionData, useNavigation } from "react-router";
import {
  SUBSCRIBERS_PAGE_SIZE,
  SUBSCRIPTION_STATUSES,
  subscriberMessages,
  type SubscriptionStatus,
} from "../../contract/newsletter.js";
import {
  newsletterSubscribersCsvPath,
  newsletterSubscribersPath,
} from "../../contract/page-paths.js";
import { deleteSubscriber, listSubscribers } from "../../core/newsletter/owners.js";
import { importSubscribers } from "../../core/newsletter/subscriber-import.js";
import { requireViewer } from "../features/auth/guards.server.js";
import { attempt, fail, failure, imageForm, limited } from "../features/forms/action.server.js";
import { FormAlert } from "../features/forms/form-alert.js";
import { RowAction } from "../features/forms/row-action.js";
import { Pager, pageParam } from "../features/posts/pager.js";
import settingsStyles from "../features/settings/settings.css?url";
import { pageMeta } from "../meta.js";
import { dateTime } from "../ui/format.js";
import { useToastOn } from "../ui/toasts.js";
import type { Route } from "./+types/subscribers";

export const links: Route.LinksFunction = () => [{ rel: "stylesheet", href: settingsStyles }];

const STATUS_NAMES: Record<SubscriptionStatus, string> = {
  pending: "Waiting for confirmation",
  active: "Active",
  unsubscribed: "Unsubscribed",
  bounced: "Bounced",
};

/**
 * An owner's subscribers (DESIGN.md 11, decision 028): a writer's own, every one for an admin,
 * searched, filtered by state and paged; each can be removed; the list goes out as CSV and comes
 * in from Ghost's or Substack's.
 */
export async function loader({ context, request }: Route.LoaderArgs) {
  const viewer = requireViewer(context, newsletterSubscribersPath);
  const asked = new URL(request.url).searchParams;
  const q = (asked.get("q") ?? "").slice(0, 320);
  const known = SUBSCRIPTION_STATUSES.find((status) => status === asked.get("status"));
  const page = pageParam(request.url, "page") ?? 1;
  const list = await listSubscribers(context.deps, viewer.actor, {
    q,
    status: known ?? "",
    pageNumber: String(page),
  });
  return {
    site: context.site,
    ...list,
    q,
    status: known,
    page,
    pages: Math.max(1, Math.ceil(list.total / SUBSCRIBERS_PAGE_SIZE)),
    isAdmin: viewer.user.isAdmin,
  };
}

export async function action({ request, context }: Route.ActionArgs) {
  const viewer = requireViewer(context);
  const { fields, image: file } = await imageForm(request, "file");
  const { deps } = context;
  if (fields.intent === "remove") {
    const removed = await attempt(() => deleteSubscriber(deps, viewer.actor, fields.id ?? ""));
    if (!removed.ok) return fail({ ...removed, intent: "remove" });
    return { ok: true as const, intent: "remove", message: "Subscriber removed", errors: {} };
  }
  if (fields.intent !== "import") return fail(failure(400, "Unknown action"));
  const tooMany = await limited(context, "subscriberImport");
  if (tooMany) return tooMany;
  if (!file) return fail({ ...failure(400, subscriberMessages.noFile), intent: "import" });
  const imported = await attempt(() =>
    importSubscribers(deps, viewer.actor, file, {
      consent: fields.consent === "yes" ? "yes" : "no",
    }),
  );
  if (!imported.ok) return fail({ ...imported, intent: "import" });
  const { imported: count, skipped } = imported.value;
  return {
    ok: true as const,
    intent: "import",
    message: `Imported ${String(count)} ${count === 1 ? "address" : "addresses"}`,
    errors: {},
    skipped,
  };
}

export const meta = ({ loaderData }: Route.MetaArgs) => [
  ...pageMeta(loaderData.site, {
    title: "Subscribers",
    description: "Who gets new posts by e-mail.",
    path: newsletterSubscribersPath,
  }),
  { name: "robots", content: "noindex" },
];

export default function Subscribers({ loaderData }: Route.ComponentProps) {
  const { subscribers, total, q, status, page, pages, isAdmin } = loaderData;
  const result = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  useToastOn(result);
  const imported =
    result?.ok && result.intent === "import"
      ? { message: result.message, skipped: "skipped" in result ? (result.skipped ?? []) : [] }
      : undefined;
  const filter = new URLSearchParams({ ...(q ? { q } : {}), ...(status ? { status } : {}) });
  const listPath = `${newsletterSubscribersPath}${filter.size > 0 ? `?${filter.toString()}` : ""}`;
  const csv = `${newsletterSubscribersCsvPath}${filter.size > 0 ? `?${filter.toString()}` : ""}`;
  return (
    <section className="security-page">
      <h1 className="page-title">Subscribers</h1>
      <p>
        {isAdmin
          ? "Everyone who gets this site's posts, or one writer's, by e-mail."
          : "Everyone who gets your new posts by e-mail."}{" "}
        <Link to="/settings">Your own subscriptions</Link> are in Settings.
      </p>
      <Form method="get" className="card form subscriber-search" role="search">
        <label htmlFor="subscriber-q">Search addresses</label>
        <input id="subscriber-q" type="search" name="q" defaultValue={q} maxLength={320} />
        <label htmlFor="subscriber-status">State</label>
        <select id="subscriber-status" name="status" defaultValue={status ?? ""}>
          <option value="">Any</option>
          {SUBSCRIPTION_STATUSES.map((one) => (
            <option key={one} value={one}>
              {STATUS_NAMES[one]}
            </option>
          ))}
        </select>
        <button type="submit" className="button button-small">
          Show
        </button>
      </Form>
      {result?.intent === "remove" ? <FormAlert result={result} /> : null}
      <p role="status">
        {total} {total === 1 ? "subscription" : "subscriptions"}
        {q || status ? " match" : ""}.{" "}
        <a href={csv} download>
          Download CSV
        </a>
      </p>
      {subscribers.length === 0 ? (
        <p className="empty">No subscribers yet</p>
      ) : (
        <div className="table-scroll">
          <table className="admin-table">
            <thead>
              <tr>
                <th scope="col">Address</th>
                <th scope="col">To</th>
                <th scope="col">State</th>
                <th scope="col">Since</th>
                <th scope="col">
                  <span className="visually-hidden">Remove</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {subscribers.map((one) => (
                <tr key={one._id}>
                  <td data-label="Address">{one.email}</td>
                  <td data-label="To">{one.scope === "site" ? "Everything" : "A writer"}</td>
                  <td data-label="State">{STATUS_NAMES[one.status]}</td>
                  <td data-label="Since">
                    <time dateTime={one.createdAt}>{dateTime(one.createdAt)}</time>
                  </td>
                  <td>
                    <RowAction
                      intent="remove"
                      id={one._id}
                      label="Remove"
                      name={`Remove ${one.email}`}
                      danger
                      busy={busy}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager page={page} pages={pages} path={listPath} label="Subscriber pages" />
      <section className="card form" aria-labelledby="import-title">
        <h2 id="import-title">Import subscribers</h2>
        <p>
          A CSV file with an <code>email</code> column, as Ghost (Members, Export) and Substack
          (Subscribers, Export) make them. Addresses already here, unsubscribed or bounced are
          skipped, and each skipped line is named.
        </p>
        {result?.intent === "import" ? <FormAlert result={result} /> : null}
        <Form method="post" encType="multipart/form-data" className="form">
          <input type="hidden" name="intent" value="import" />
          <label htmlFor="import-file">CSV file</label>
          <input id="import-file" type="file" name="file" accept=".csv,text/csv" required />
          <label className="settings-choice">
            <input type="checkbox" name="consent" value="yes" />
            <span>
              They agreed to get these posts: subscribe them at once. Otherwise each new address is
              sent a mail to confirm.
            </span>
          </label>
          <button type="submit" className="button" disabled={busy}>
            Import
          </button>
        </Form>
        {imported ? (
          <div role="status">
            <p>{imported.message}.</p>
            {imported.skipped.length > 0 ? (
              <ul>
                {imported.skipped.slice(0, 50).map((skip) => (
                  <li key={skip.line}>
                    Line {skip.line}: {skip.reason}
                  </li>
                ))}
                {imported.skipped.length > 50 ? (
                  <li>…and {imported.skipped.length - 50} more</li>
                ) : null}
              </ul>
            ) : null}
          </div>
        ) : null}
      </section>
    </section>
  );
}
