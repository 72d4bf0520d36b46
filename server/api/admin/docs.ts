import { PageQuerySchema } from "../../../contract/content.js";
import { AuditListSchema } from "../../../contract/responses.js";
import type { RouteDocs } from "../openapi/route-docs.js";

/** The API reference's entries for server/api/admin/routes.ts. */
export const adminDocs = {
  audit: {
    summary: "Read the audit log",
    description:
      "Every admin action: deletes of others' content, categories, suspensions, report decisions.",
    access: "admin",
    query: PageQuerySchema.pick({ pageNumber: true }),
    response: {
      status: 200,
      description: "6 entries a page, newest first",
      schema: AuditListSchema,
    },
  },
} satisfies Record<string, RouteDocs>;
