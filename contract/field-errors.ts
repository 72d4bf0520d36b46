import type { z } from "zod";

/** Field name -> first message, the `errors` of a 400 response and of a form. */
export type FieldErrors = Record<string, string>;

export type Parsed<T> = { ok: true; data: T } | { ok: false; message: string; errors: FieldErrors };

/** Runs a schema and keeps the first message per field, in the order the schema declares them. */
export function parseWith<S extends z.ZodType>(schema: S, input: unknown): Parsed<z.output<S>> {
  const body = input ?? {};
  if (typeof body !== "object" || Array.isArray(body)) {
    const message = "The request body must be a JSON object";
    return { ok: false, message, errors: { body: message } };
  }
  const result = schema.safeParse(body);
  if (result.success) return { ok: true, data: result.data };
  const errors: FieldErrors = {};
  for (const issue of result.error.issues) {
    const field = issue.path.map(String).join(".") || "body";
    errors[field] ??= issue.message;
  }
  const message = result.error.issues[0]?.message ?? "Invalid input";
  return { ok: false, message, errors };
}

/**
 * Text with every line ending a line feed: a form sends CRLF, a script LF, an old Mac CR; a body
 * stored and diffed one way shows only what its writer changed (issue 50).
 */
export const withLineFeeds = (text: string) => text.replace(/\r\n?/g, "\n");
