import type { FieldErrors } from "../../contract/validation.js";

/** What went wrong, in domain terms; the HTTP host maps each kind to a status once. */
export type ErrorKind =
  | "invalid"
  | "unauthenticated"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "too_large"
  | "unsupported"
  | "rate_limited"
  | "unavailable";

/** The HTTP status each kind answers with (DESIGN.md 5), for the API and the page actions alike. */
export const STATUS_OF: Record<ErrorKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  unsupported: 415,
  rate_limited: 429,
  unavailable: 503,
};

/** Marks a DomainError whichever copy of this module made it (below). */
const DOMAIN_ERROR = Symbol.for("blog-platform.DomainError");

export class DomainError extends Error {
  readonly [DOMAIN_ERROR] = true;

  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly errors?: FieldErrors,
    /** More fields of the answer beside `message` (a suspension's reason and end). */
    readonly details?: Readonly<Record<string, string | boolean | null>>,
  ) {
    super(message);
    this.name = "DomainError";
  }

  /**
   * The site's build carries a copy of core/ of its own, and a refusal may come from the host's
   * (a Markdown body refused on the host's render thread, read by a page's action): any DomainError
   * is one, whichever copy made it. Subclasses are checked as usual.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (this !== DomainError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return typeof value === "object" && value !== null && DOMAIN_ERROR in value;
  }
}

export const invalid = (message: string, errors?: FieldErrors) =>
  new DomainError("invalid", message, errors);
export const unauthenticated = (message = "Please log in") =>
  new DomainError("unauthenticated", message);
export const forbidden = (
  message = "You are not allowed to do this",
  details?: Readonly<Record<string, string | null>>,
) => new DomainError("forbidden", message, undefined, details);
export const notFound = (message: string, errors?: FieldErrors) =>
  new DomainError("not_found", message, errors);
export const conflict = (message: string) => new DomainError("conflict", message);
export const tooLarge = (message = "File size is too large") =>
  new DomainError("too_large", message);
export const unsupported = (message = "Unsupported File Format") =>
  new DomainError("unsupported", message);
export const unavailable = (message: string) => new DomainError("unavailable", message);

/**
 * The same refusal naming the form field it is about (when it names none yet). A refusal that ends
 * by itself is about the account, not the field, and keeps its Retry-After.
 */
export function namingField(field: string) {
  return (error: unknown): never => {
    if (error instanceof DomainError && !error.errors && !(error instanceof TooManyAttempts)) {
      throw new DomainError(error.kind, error.message, { [field]: error.message });
    }
    throw error;
  };
}

/** A refusal that ends by itself; the API tells the client when to come back (Retry-After). */
export class TooManyAttempts extends DomainError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super("rate_limited", message);
  }
}

export const tooManyAttempts = (message: string, retryAfterSeconds: number) =>
  new TooManyAttempts(message, retryAfterSeconds);
