import {
  ReportCreateSchema,
  ReportDecisionSchema,
  ReportListQuerySchema,
} from "../../../contract/moderation.js";
import {
  ReportCreatedSchema,
  ReportDecidedSchema,
  ReportGroupListSchema,
} from "../../../contract/responses.js";
import type { RouteDocs } from "../openapi/route-docs.js";

/** The API reference's entries for server/api/reports/routes.ts. */
export const reportDocs = {
  create: {
    summary: "Report a post, a comment or an account",
    description: "Exactly one of `postId`, `commentId` and `userId`.",
    access: "signed-in",
    body: ReportCreateSchema,
    response: { status: 201, description: "Received", schema: ReportCreatedSchema },
    errors: {
      404: "Nothing with that id",
      409: "The caller already has an open report of the same thing",
    },
  },
  list: {
    summary: "List reports, grouped by what they are about",
    access: "admin",
    query: ReportListQuerySchema,
    response: { status: 200, description: "6 groups a page", schema: ReportGroupListSchema },
  },
  decide: {
    summary: "Decide a report",
    description:
      "Closes every open report of the same target: `dismiss`, `remove` the post or comment, or " +
      "`suspend` its author (with the `reason` and `until` of `PUT /api/users/suspend/{id}`, " +
      "logged once, as the report's decision).",
    access: "admin",
    params: { id: "A report's id" },
    body: ReportDecisionSchema,
    response: { status: 200, description: "Decided", schema: ReportDecidedSchema },
    errors: {
      400: "Invalid input, or `remove` on a report about an account",
      404: "No report with that id",
      409: "The report is decided already",
    },
  },
} satisfies Record<string, RouteDocs>;
