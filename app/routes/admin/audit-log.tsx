import { countAudit, listAudit } from "../../../core/audit/audit-log.js";
import { PAGE_SIZE } from "../../../contract/limits.js";
import type { AuditAction } from "../../../db/schema.js";
import { requireAdmin } from "../../features/admin/guard.server.js";
import { Pager, pageParam } from "../../features/posts/pager.js";
import { pageMeta } from "../../meta.js";
import { dateTime } from "../../ui/format.js";
import type { Route } from "./+types/audit-log";

/** What each action reads as in the table. */
const ACTIONS: Record<AuditAction, string> = {
  "post.delete": "Deleted post",
  "comment.delete": "Deleted comment",
  "user.delete": "Deleted user",
  "user.suspend": "Suspended user",
  "user.restore": "Restored user",
  "category.create": "Added category",
  "category.delete": "Deleted category",
  "site.update": "Changed site settings",
  "webhook.create": "Added webhook",
  "webhook.delete": "Removed webhook",
  "report.dismiss": "Dismissed report",
  "report.remove": "Removed reported content",
  "report.suspend": "Suspended reported author",
  "page.create": "Added page",
  "page.update": "Changed page",
  "page.delete": "Deleted page",
  "series.delete": "Deleted series",
};

export async function loader({ context, request }: Route.LoaderArgs) {
  const { actor } = requireAdmin(context);
  const total = await countAudit(context.deps, actor);
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
  const page = Math.min(pageParam(request.url, "page") ?? 1, pages);
  return {
    site: context.site,
    page,
    pages,
    entries: await listAudit(context.deps, actor, page),
  };
}

export const meta = ({ loaderData }: Route.MetaArgs) =>
  pageMeta(loaderData.site, {
    title: "Audit log",
    description: "Every admin action.",
    path: "/admin-dashboard/audit-log",
  });

/** Who did what and when: read-only, newest first. */
export default function AuditLog({ loaderData }: Route.ComponentProps) {
  const { entries, page, pages } = loaderData;
  return (
    <>
      <h1 className="page-title">Audit log</h1>
      {entries.length === 0 ? (
        <p className="empty">No admin actions yet</p>
      ) : (
        <div className="table-scroll">
          <table className="admin-table">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">What</th>
                <th scope="col">Target</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((entry) => (
                <tr key={entry._id}>
                  <td data-label="When">
                    <time dateTime={entry.createdAt}>{dateTime(entry.createdAt)}</time>
                  </td>
                  <td data-label="Who" className="keep-words">
                    {entry.actor.username}
                  </td>
                  <td data-label="What" className="keep-words">
                    {ACTIONS[entry.action]}
                  </td>
                  <td data-label="Target">{entry.target.summary}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager page={page} pages={pages} path="/admin-dashboard/audit-log" label="Audit log pages" />
    </>
  );
}
