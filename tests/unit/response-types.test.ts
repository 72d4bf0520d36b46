import { describe, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import type { PresentedComment } from "../../core/comments/presenters.js";
import type { PostSummary } from "../../core/posts/presenters.js";
import type { PublicUser } from "../../core/users/presenters.js";
import type { PresentedAuditEntry } from "../../core/audit/audit-log.js";
import type {
  AuditEntrySchema,
  CommentSchema,
  PostSchema,
  PublicUserSchema,
} from "../../contract/responses.js";

/**
 * The presenters' types agree with the answers the API reference documents (checked by the
 * compiler, in `npm run typecheck`); tests/api/openapi.test.ts checks the answers themselves.
 */
describe("documented answer shapes", () => {
  it("match what the presenters make", () => {
    expectTypeOf<PublicUser>().toEqualTypeOf<z.output<typeof PublicUserSchema>>();
    expectTypeOf<PostSummary>().toExtend<z.output<typeof PostSchema>>();
    expectTypeOf<PresentedComment>().toExtend<z.output<typeof CommentSchema>>();
    expectTypeOf<PresentedAuditEntry>().toExtend<z.output<typeof AuditEntrySchema>>();
  });
});
