import { z } from "zod";

/** Inputs of the moderation calls (DESIGN.md 9, "Conversations and moderation"). */
export const moderationMessages = {
  suspendedRequired: "suspended must be true or false",
} as const;

const m = moderationMessages;

/** `PUT /api/users/suspend/:id`. */
export const SuspendSchema = z.object({
  suspended: z.boolean({ error: m.suspendedRequired }),
});
