import { Form, Link, useActionData } from "react-router";
import { decideReport, listReports } from "../../../core/reports/reports-service.js";
import { PAGE_SIZE } from "../../../contract/limits.js";
import { requireAdmin } from "../../features/admin/guard.server.js";
import { attempt, fail, formFields } from "../../features/forms/action.server.js";
import { SuspendForm, suspensionTermsOf } from "../../features/admin/suspend-form.js";
import { pageMeta } from "../../meta.js";
import { dateTime } from "../../ui/format.js";
import { useToastOn } from "../../ui/toasts.js";
import type { Route } from "./+types/reports-table";
import { postPath, profilePath } from "../../../contract/page-paths.js";

export async function loader({ context, request }: Route.LoaderArgs) {
  const { actor } = requireAdmin(context);
  const search = new URL(request.url).searchParams;
  const status = search.get("status") === "closed" ? "closed" : "open";
  const page = /^[1-9]\d{0,8}$/.test(search.get("page") ?? "") ? (search.get("page") ?? "1") : "1";
  return {
    site: context.site,
    status,
    page: Number(page),
    groups: await listReports(context.deps, actor, { status, pageNumber: page }),
  };
}

export async function action({ request, context }: Route.ActionArgs) {
  const { actor } = requireAdmin(context);
  const fields = await formFields(request);
  const { id = "", action = "" } = fields;
  const terms = action === "suspend" ? suspensionTermsOf(fields) : {};
  const result = await attempt(() => decideReport(context.deps, actor, id, { action, ...terms }));
  return result.ok ? { ok: true, message: result.value.message, errors: {} } : fail(result);
}

export const meta = ({ loaderData }: Route.MetaArgs) =>
  pageMeta(loaderData.site, {
    title: "Reports",
    description: "What members reported.",
    path: "/admin-dashboard/reports-table",
  });

type Group = Route.ComponentProps["loaderData"]["groups"][number];

const DECISIONS = { dismiss: "Dismissed", remove: "Removed", suspend: "Author suspended" };

/** Where the reported thing can be seen (a comment on its post's page is not addressable alone). */
function TargetLink({ target }: { target: Group["target"] }) {
  if (target.kind === "post") return <Link to={postPath(target._id)}>{target.summary}</Link>;
  if (target.kind === "user") return <Link to={profilePath(target._id)}>{target.summary}</Link>;
  return <q>{target.summary}</q>;
}

function Decide({ group, action, label }: { group: Group; action: string; label: string }) {
  return (
    <Form method="post" className="inline-form">
      <input type="hidden" name="id" value={group._id} />
      <input type="hidden" name="action" value={action} />
      <button
        type="submit"
        className={`button button-small${action === "dismiss" ? "" : " button-danger"}`}
      >
        {label}
      </button>
    </Form>
  );
}

/** The moderation queue: open reports grouped by target with one-click decisions; closed ones kept. */
export default function ReportsTable({ loaderData }: Route.ComponentProps) {
  useToastOn(useActionData<typeof action>());
  const { groups, status, page } = loaderData;
  const other = status === "open" ? "closed" : "open";
  return (
    <>
      <h1 className="page-title">Reports</h1>
      <p>
        {status === "open" ? "Open reports" : "Closed reports"} ·{" "}
        <Link to={`/admin-dashboard/reports-table?status=${other}`}>
          {other === "open" ? "Open reports" : "Closed reports"}
        </Link>
      </p>
      {groups.length === 0 ? (
        <p className="empty">No Reports Were Found</p>
      ) : (
        <div className="table-scroll">
          <table className="admin-table">
            <thead>
              <tr>
                <th scope="col">Reported</th>
                <th scope="col">Author</th>
                <th scope="col">By</th>
                <th scope="col">Reports</th>
                <th scope="col">Reasons</th>
                <th scope="col">{status === "open" ? "Action" : "Decision"}</th>
              </tr>
            </thead>
            <tbody>
              {groups.map((group) => (
                <tr key={group._id}>
                  <td data-label="Reported">
                    {group.target.kind}: <TargetLink target={group.target} />
                  </td>
                  <td data-label="Author" className="keep-words">
                    {group.target.user?.username ?? ""}
                  </td>
                  <td data-label="By" className="keep-words">
                    {[...new Set(group.reports.map((report) => report.reporter.username))].join(
                      ", ",
                    )}
                  </td>
                  <td data-label="Reports" className="keep-words">
                    {group.count}
                  </td>
                  <td data-label="Reasons">
                    <ul className="report-reasons">
                      {group.reports.map((report) => (
                        <li key={report._id}>
                          {report.reason}
                          {report.note ? `: ${report.note}` : ""} ({report.reporter.username})
                        </li>
                      ))}
                    </ul>
                  </td>
                  <td data-label={status === "open" ? "Action" : "Decision"}>
                    {status === "open" ? (
                      <div className="row-actions">
                        <Decide group={group} action="dismiss" label="Dismiss" />
                        {group.target.kind === "user" ? null : (
                          <Decide group={group} action="remove" label="Remove" />
                        )}
                        {group.target.user ? (
                          <SuspendForm
                            username={group.target.user.username}
                            label="Suspend author"
                            fields={{ id: group._id, action: "suspend" }}
                          />
                        ) : null}
                      </div>
                    ) : (
                      <>
                        {group.decision ? DECISIONS[group.decision] : ""} by{" "}
                        {group.decidedBy?.username ?? ""}
                        {group.decidedAt ? (
                          <>
                            {" "}
                            on <time dateTime={group.decidedAt}>{dateTime(group.decidedAt)}</time>
                          </>
                        ) : null}
                      </>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {groups.length > 0 || page > 1 ? (
        <nav className="pager" aria-label="Report pages">
          {page > 1 ? (
            <Link to={`/admin-dashboard/reports-table?status=${status}&page=${String(page - 1)}`}>
              Newer
            </Link>
          ) : null}{" "}
          {groups.length === PAGE_SIZE ? (
            <Link to={`/admin-dashboard/reports-table?status=${status}&page=${String(page + 1)}`}>
              Older
            </Link>
          ) : null}
        </nav>
      ) : null}
    </>
  );
}
