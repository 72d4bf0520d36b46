import { z } from "./zod.js";
import { REPORT_ACTIONS, REPORT_NOTE_MAX, REPORT_REASONS } from "./report-rules.js";
import { parseIsoTime } from "./publish-time.js";

/** Inputs of the moderation calls (DESIGN.md 9, "Conversations and moderation"). */
export const SUSPENSION_REASON_MAX = 500;

export const moderationMessages = {
  suspendedRequired: "suspended must be true or false",
  reasonInvalid: "Reason must be text",
  reasonTooLong: `Reason must be at most ${String(SUSPENSION_REASON_MAX)} characters long`,
  untilInvalid: "End must be a date and time such as 2026-12-01T00:00:00Z",
  untilPast: "End must be in the future",
} as const;

const m = moderationMessages;

/**
 * The terms of a suspension (issue 33): a reason the member is shown, and when it lifts by itself.
 * Both optional; a blank reason is none.
 */
export const suspensionTerms = {
  reason: z
    .string({ error: m.reasonInvalid })
    .trim()
    .max(SUSPENSION_REASON_MAX, m.reasonTooLong)
    .transform((reason) => (reason === "" ? undefined : reason))
    .optional(),
  until: z
    .string({ error: m.untilInvalid })
    .trim()
    .refine((text) => parseIsoTime(text) !== undefined, m.untilInvalid)
    .transform((text) => parseIsoTime(text) ?? new Date(Number.NaN))
    .optional(),
};

/** `PUT /api/users/suspend/:id`: `reason` and `until` apply to a suspension only. */
export const SuspendSchema = z.object({
  suspended: z.boolean({ error: m.suspendedRequired }),
  ...suspensionTerms,
});

export * from "./report-rules.js";

export const reportMessages = {
  targetRequired: "Report exactly one of postId, commentId or userId",
  reasonInvalid: "Reason must be spam, harassment or other",
  noteTooLong: `Note must be at most ${String(REPORT_NOTE_MAX)} characters long`,
  actionInvalid: "Action must be dismiss, remove or suspend",
  statusInvalid: "Status must be open or closed",
} as const;

const r = reportMessages;
const targetId = z.string({ error: r.targetRequired }).trim().min(1, r.targetRequired).optional();

/** `POST /api/reports`: exactly one target, a reason, and an optional note. */
export const ReportCreateSchema = z
  .object({
    postId: targetId,
    commentId: targetId,
    userId: targetId,
    reason: z.enum(REPORT_REASONS, { error: r.reasonInvalid }),
    note: z.string({ error: r.noteTooLong }).trim().max(REPORT_NOTE_MAX, r.noteTooLong).optional(),
  })
  .refine(
    (input) =>
      [input.postId, input.commentId, input.userId].filter((id) => id !== undefined).length === 1,
    { error: r.targetRequired, path: ["target"] },
  );
export type ReportCreateInput = z.infer<typeof ReportCreateSchema>;

/** `PUT /api/reports/:id`. */
export const ReportDecisionSchema = z.object({
  action: z.enum(REPORT_ACTIONS, { error: r.actionInvalid }),
  /** With `suspend`: the suspension's terms, as `PUT /api/users/suspend/:id` takes them. */
  ...suspensionTerms,
});

/** `GET /api/reports?status=open|closed&pageNumber=n`. */
export const ReportListQuerySchema = z.object({
  status: z.enum(["open", "closed"], { error: r.statusInvalid }).default("open"),
  pageNumber: z
    .string()
    .regex(/^[1-9]\d{0,8}$/, "pageNumber must be a whole number from 1")
    .transform(Number)
    .default(1),
});
