import type { z } from "zod";
import { parseWith } from "../../contract/validation.js";
import { invalid } from "./errors.js";

/** Parses input with a contract schema or throws a 400 carrying SPEC.md's message per field. */
export function validate<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = parseWith(schema, input);
  if (!result.ok) throw invalid(result.message, result.errors);
  return result.data;
}
