import { z } from "./zod.js";

// What parses and reports, without zod itself: the browser loads zod only when a form is used.
export { parseWith, withLineFeeds, type FieldErrors, type Parsed } from "./field-errors.js";

/**
 * A string field that reports `required` when missing, empty or of another type, so a client
 * that omits a field sees the same words as one that leaves it blank.
 */
export function requiredString(required: string) {
  return z.string({ error: required }).trim().min(1, required);
}
