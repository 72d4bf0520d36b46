import {
  ReportCreateSchema,
  ReportDecisionSchema,
  ReportListQuerySchema,
  type ReportCreateInput,
} from "../../contract/moderation.js";
import type { Kysely } from "kysely";
import type { Database, ReportDecision, ReportsTable, ReportTargetKind } from "../../db/schema.js";
import { recordAudit, summaryOf } from "../audit/audit-log.js";
import { commentMessages, deleteCommentIn } from "../comments/comments-service.js";
import { selectComments } from "../comments/queries.js";
import { discardImages } from "../media/images.js";
import type { CoreDeps } from "../deps.js";
import { deletePostIn, findVisiblePost, postMessages } from "../posts/posts-service.js";
import { pageOf } from "../posts/queries.js";
import { iso } from "../shared/clock.js";
import { changingContent } from "../shared/content-changes.js";
import { conflict, invalid, notFound } from "../shared/errors.js";
import { isId, newId } from "../shared/ids.js";
import { validate } from "../shared/validate.js";
import { assertAdmin, type Actor } from "../users/policies.js";
import {
  checkedTerms,
  setSuspendedIn,
  suspensionMessages,
  tellSuspended,
} from "../users/suspension.js";
import { findUser, userMessages } from "../users/users-service.js";

export const reportMessages = {
  received: "Thank you, your report was received",
  already: "You have already reported this",
  notFound: "Report not found",
  decided: "This report has already been decided",
  onlyContent: "Only a post or a comment can be removed",
  dismissed: "Report dismissed",
  removed: "Reported content removed",
  suspended: "Author suspended",
} as const;

interface Target {
  kind: ReportTargetKind;
  id: string;
  userId: string;
  summary: string;
}

/**
 * The reported thing, or a 404 naming the field that named it: the same 404 for a post the
 * reporter may not see (a draft, a scheduled post) or a comment on one, so a report tells nothing
 * of what is hidden.
 */
async function findTarget(deps: CoreDeps, actor: Actor, input: ReportCreateInput): Promise<Target> {
  if (input.postId !== undefined) {
    const post = await findVisiblePost(deps, actor, input.postId);
    if (!post) throw notFound(postMessages.notFound, { postId: postMessages.notFound });
    return { kind: "post", id: post.id, userId: post.user_id, summary: post.title };
  }
  if (input.commentId !== undefined) {
    const id = input.commentId;
    const comment = isId(id)
      ? await selectComments(deps.db).where("comments.id", "=", id).executeTakeFirst()
      : undefined;
    if (!comment || !(await findVisiblePost(deps, actor, comment.post_id))) {
      throw notFound(commentMessages.notFound, { commentId: commentMessages.notFound });
    }
    return { kind: "comment", id: comment.id, userId: comment.user_id, summary: comment.text };
  }
  const user = await findUser(deps, input.userId ?? "");
  if (!user) throw notFound(userMessages.notFound, { userId: userMessages.notFound });
  return { kind: "user", id: user.id, userId: user.id, summary: user.username };
}

const openReportOf = (deps: CoreDeps, reporterId: string, target: Target) =>
  deps.db
    .selectFrom("reports")
    .select("id")
    .where("reporter_id", "=", reporterId)
    .where("target_kind", "=", target.kind)
    .where("target_id", "=", target.id)
    .where("status", "=", "open")
    .executeTakeFirst();

/** A member reports a post, a comment or a user; one open report per person and target. */
export async function createReport(deps: CoreDeps, actor: Actor, body: unknown) {
  const input = validate(ReportCreateSchema, body);
  const target = await findTarget(deps, actor, input);
  if (await openReportOf(deps, actor.id, target)) throw conflict(reportMessages.already);
  const row: ReportsTable = {
    id: newId(),
    reporter_id: actor.id,
    target_kind: target.kind,
    target_id: target.id,
    target_user_id: target.userId,
    target_summary: summaryOf(target.summary),
    reason: input.reason,
    note: input.note ?? "",
    status: "open",
    decision: null,
    decided_by: null,
    decided_by_name: null,
    decided_at: null,
    created_at: iso(deps.clock()),
  };
  try {
    await deps.db.insertInto("reports").values(row).execute();
  } catch (error) {
    // The same report sent twice at once: the partial unique index keeps one.
    if (await openReportOf(deps, actor.id, target)) throw conflict(reportMessages.already);
    throw error;
  }
  return { _id: row.id, message: reportMessages.received };
}

const userRef = (id: string | null, username: string | null | undefined) =>
  id === null ? null : { _id: id, username: username ?? "" };

/**
 * One page of reports grouped by what they are about (admins only): open ones by target, newest
 * first; closed ones by target and decision, most recently decided first.
 */
export async function listReports(deps: CoreDeps, actor: Actor, query: unknown) {
  assertAdmin(actor);
  const { status, pageNumber } = validate(ReportListQuerySchema, query);
  const { limit, offset } = pageOf(pageNumber);
  const groups = await deps.db
    .selectFrom("reports")
    .select(["target_kind", "target_id"])
    .select((eb) => eb.fn.max("created_at").as("latest"))
    .select((eb) => eb.fn.max("decided_at").as("decided"))
    .where("status", "=", status)
    .groupBy(["target_kind", "target_id"])
    .orderBy(status === "open" ? "latest" : "decided", "desc")
    .orderBy("target_id")
    .limit(limit)
    .offset(offset)
    .execute();
  if (groups.length === 0) return [];
  const rows = await deps.db
    .selectFrom("reports")
    .innerJoin("users as reporter", "reporter.id", "reports.reporter_id")
    .leftJoin("users as author", "author.id", "reports.target_user_id")
    .selectAll("reports")
    .select(["reporter.username as reporter_name", "author.username as author_name"])
    .where("reports.status", "=", status)
    .where(
      "reports.target_id",
      "in",
      groups.map((group) => group.target_id),
    )
    .orderBy("reports.created_at", "desc")
    .execute();
  return groups.map((group) => {
    const reports = rows.filter(
      (row) => row.target_kind === group.target_kind && row.target_id === group.target_id,
    );
    const [newest] = reports;
    if (!newest) throw new Error("a report group without reports");
    const decided = reports.find((row) => row.decided_at === group.decided) ?? newest;
    return {
      _id: newest.id,
      status,
      target: {
        kind: newest.target_kind,
        _id: newest.target_id,
        summary: newest.target_summary,
        user: userRef(newest.target_user_id, newest.author_name),
      },
      count: reports.length,
      reports: reports.map((row) => ({
        _id: row.id,
        reason: row.reason,
        note: row.note,
        reporter: { _id: row.reporter_id, username: row.reporter_name },
        createdAt: row.created_at,
      })),
      decision: decided.decision,
      decidedBy: userRef(decided.decided_by, decided.decided_by_name),
      decidedAt: decided.decided_at,
    };
  });
}

/**
 * An admin decides a report, and with it every open report of the same target: dismiss, remove
 * the post or comment, or suspend its author. One transaction claims the open reports (closing
 * them), does the removal or suspension (logged as that admin action too) and logs the decision:
 * of two admins deciding at once, one does it all and the other gets 409 with nothing done. A
 * target removed meanwhile leaves nothing to remove; the reports are closed all the same.
 */
export async function decideReport(deps: CoreDeps, actor: Actor, id: string, body: unknown) {
  assertAdmin(actor);
  const report = isId(id)
    ? await deps.db.selectFrom("reports").selectAll().where("id", "=", id).executeTakeFirst()
    : undefined;
  if (!report) throw notFound(reportMessages.notFound);
  const { action, ...terms } = validate(ReportDecisionSchema, body);
  if (report.status !== "open") throw conflict(reportMessages.decided);
  if (action === "remove" && report.target_kind === "user") {
    throw invalid(reportMessages.onlyContent, { action: reportMessages.onlyContent });
  }
  if (action === "suspend") {
    if (report.target_user_id === null) throw notFound(userMessages.notFound);
    if (report.target_user_id === actor.id) throw invalid(suspensionMessages.self);
    checkedTerms(deps, terms);
  }
  let suspended: string | undefined;
  const decide = () =>
    deps.db.transaction().execute(async (trx) => {
      await claimReports(trx, deps, actor, report, action);
      const removed =
        action === "remove" ? await removeTarget(trx, deps, actor, report) : { imageKeys: [] };
      if (action === "suspend") {
        const author = await trx
          .selectFrom("users")
          .select(["id", "username", "is_admin"])
          .where("id", "=", report.target_user_id ?? "")
          .executeTakeFirst();
        if (!author) throw notFound(userMessages.notFound);
        // Logged once, as the report's decision (below).
        await setSuspendedIn(trx, deps, actor, author, terms, { audit: false });
        suspended = author.id;
      }
      await recordAudit(trx, deps, actor, `report.${action}`, {
        kind: report.target_kind,
        id: report.target_id,
        summary: report.target_summary,
      });
      return removed;
    });
  const { imageKeys } = action === "remove" ? await changingContent(deps, decide) : await decide();
  await discardImages(deps, imageKeys);
  if (suspended) await tellSuspended(deps, suspended, terms);
  const messages = {
    dismiss: reportMessages.dismissed,
    remove: reportMessages.removed,
    suspend: reportMessages.suspended,
  } as const;
  return { _id: report.id, status: "closed", decision: action, message: messages[action] };
}

/**
 * Closes every open report of the target as decided by `actor`, or throws 409 when there is none
 * left: another admin decided them first. Done first in the decision's transaction, so on
 * PostgreSQL a second decision waits on these rows and then finds them closed.
 */
async function claimReports(
  trx: Kysely<Database>,
  deps: CoreDeps,
  actor: Actor,
  report: ReportsTable,
  decision: ReportDecision,
) {
  const admin = await trx
    .selectFrom("users")
    .select("username")
    .where("id", "=", actor.id)
    .executeTakeFirst();
  const closed = await trx
    .updateTable("reports")
    .set({
      status: "closed",
      decision,
      decided_by: actor.id,
      decided_by_name: admin?.username ?? "",
      decided_at: iso(deps.clock()),
    })
    .where("target_kind", "=", report.target_kind)
    .where("target_id", "=", report.target_id)
    .where("status", "=", "open")
    .executeTakeFirst();
  if (closed.numUpdatedRows === 0n) throw conflict(reportMessages.decided);
}

/**
 * Deletes the reported post or comment if it is still there: its image keys, to discard after,
 * and whether a published post left the site (webhooks are told once the removal is committed).
 */
async function removeTarget(
  trx: Kysely<Database>,
  deps: CoreDeps,
  actor: Actor,
  report: ReportsTable,
): Promise<{ imageKeys: (string | null)[] }> {
  if (report.target_kind === "post") {
    const post = await trx
      .selectFrom("posts")
      .select(["id", "user_id", "title", "image_key"])
      .where("id", "=", report.target_id)
      .executeTakeFirst();
    if (!post) return { imageKeys: [] };
    return { imageKeys: await deletePostIn(trx, deps, actor, post) };
  }
  const comment = await trx
    .selectFrom("comments")
    .select(["id", "user_id", "text"])
    .where("id", "=", report.target_id)
    .executeTakeFirst();
  if (comment) await deleteCommentIn(trx, deps, actor, comment);
  return { imageKeys: [] };
}
