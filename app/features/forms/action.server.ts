import { data, type AppLoadContext } from "react-router";
import { DomainError, STATUS_OF } from "../../../core/shared/errors.js";
import type { ActionResult } from "./form-state.js";
import type { LimitName } from "../../../contract/site-host.js";

export type Failure = ActionResult & {
  ok: false;
  status: number;
  intent?: string;
  /** The row it was about, where a page lists several with one form each. */
  id?: string | undefined;
  /** More facts of the refusal beside its message (a suspension's reason and end). */
  details?: Readonly<Record<string, string | boolean | null>>;
};

/**
 * Runs a domain call for an action. A domain error becomes a failure the form shows (the server's
 * message as a toast, field messages under the fields); anything else is a real failure.
 */
export async function attempt<T>(
  call: () => Promise<T>,
): Promise<{ ok: true; value: T } | Failure> {
  try {
    return { ok: true, value: await call() };
  } catch (error) {
    if (error instanceof DomainError) {
      return {
        ok: false,
        status: STATUS_OF[error.kind],
        message: error.message,
        errors: error.errors ?? {},
        ...(error.details ? { details: error.details } : {}),
      };
    }
    throw error;
  }
}

/** A failure as the action's answer, with the status that says what happened. */
export const fail = (failure: Failure) => data(failure, { status: failure.status });

export const failure = (status: number, message: string): Failure => ({
  ok: false,
  status,
  message,
  errors: {},
});

/** Counts an attempt against a named limit; the 429 answer once it is exceeded. */
export async function limited(context: AppLoadContext, name: LimitName) {
  const message = await context.limit(name);
  return message ? fail(failure(429, message)) : undefined;
}

/** A body no form of ours sends (wrong type, broken multipart) is a 400, not a crash. */
async function readForm(request: Request) {
  try {
    return await request.formData();
  } catch {
    throw data(failure(400, "The form could not be read"), { status: 400 });
  }
}

export const formFields = async (request: Request) =>
  Object.fromEntries(
    [...(await readForm(request)).entries()].filter(
      (entry): entry is [string, string] => typeof entry[1] === "string",
    ),
  );

/** A submitted form's text fields, and the bytes of its `image` file (or `fileField`'s) if chosen. */
export async function imageForm(request: Request, fileField = "image") {
  const form = await readForm(request);
  const fields: Record<string, string> = {};
  let image: Buffer | undefined;
  for (const [name, value] of form.entries()) {
    if (typeof value === "string") fields[name] = value;
    else if (name === fileField && value.size > 0) image = Buffer.from(await value.arrayBuffer());
  }
  return { fields, image };
}
