import { PageQuerySchema } from "../../../contract/content.js";
import { AdminUserSearchSchema, AuditListSchema } from "../../../contract/responses.js";
import { UserListQuerySchema, USERS_PAGE_SIZE } from "../../../contract/users.js";
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
  users: {
    summary: "Search and page the accounts",
    description:
      "The admin's users table (issue 50): newest first; `q` keeps the accounts whose username " +
      `or e-mail contains it (any case), \`pageNumber\` takes a page of ${String(USERS_PAGE_SIZE)}. ` +
      "SPEC's `GET /api/users/profile` and `GET /api/users/count` stay as they were.",
    access: "admin",
    query: UserListQuerySchema,
    response: {
      status: 200,
      description: "The accounts asked for, and how many the search finds in all",
      schema: AdminUserSearchSchema,
    },
  },
} satisfies Record<string, RouteDocs>;
