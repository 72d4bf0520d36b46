import { DomainError } from "../../../core/shared/errors.js";
import type { ActionResult } from "./form-state.js";

/**
 * Runs a domain call for an action. A domain error becomes a result the form shows (the server's
 * message as a toast, field messages under the fields); anything else is a real failure.
 */
export async function attempt<T>(
  call: () => Promise<T>,
): Promise<{ ok: true; value: T } | (ActionResult & { ok: false })> {
  try {
    return { ok: true, value: await call() };
  } catch (error) {
    if (error instanceof DomainError) {
      return { ok: false, message: error.message, errors: error.errors ?? {} };
    }
    throw error;
  }
}

export const formFields = async (request: Request) =>
  Object.fromEntries(
    [...(await request.formData()).entries()].filter(
      (entry): entry is [string, string] => typeof entry[1] === "string",
    ),
  );

/** A submitted form's text fields, and the bytes of its `image` file if one was chosen. */
export async function imageForm(request: Request) {
  const form = await request.formData();
  const fields: Record<string, string> = {};
  let image: Buffer | undefined;
  for (const [name, value] of form.entries()) {
    if (typeof value === "string") fields[name] = value;
    else if (name === "image" && value.size > 0) image = Buffer.from(await value.arrayBuffer());
  }
  return { fields, image };
}
