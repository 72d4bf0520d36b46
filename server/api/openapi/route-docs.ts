import type { FastifyContextConfig } from "fastify";
import { z } from "zod";
import { IMAGE_TYPES } from "../../../contract/limits.js";

/** Who may call a route: decides its bearer requirement and the 401/403 it can answer. */
export type Access =
  /** No token needed; one is ignored. */
  | "anyone"
  /** No token needed; a valid one may show more (a draft to its author, an e-mail to its owner). */
  | "anyone-or-signed-in"
  /** A valid bearer token (401 without one); a read-only API token only reads (403). */
  | "signed-in"
  /** A session's bearer token: an account change, refused to API tokens (403, decision 025). */
  | "session"
  /** An admin's bearer token (401 without a token, 403 for anyone else). */
  | "admin";

/** A refusal a route can answer with beyond those its docs imply, and when. */
export type ErrorStatus = 400 | 403 | 404 | 409 | 413 | 415 | 503;

/**
 * The API reference's entry for one route, given to its registration:
 * `app.get("/api/x", documented(xDocs.list), handler)`. 401 (and 403 for admins) follows from
 * `access`, 400 from a body or query, 413 and 415 from a form, 429 from a rate limit; `errors`
 * adds the rest (404 for an id that names nothing, 409...) or a better sentence for one of those.
 */
export interface RouteDocs {
  summary: string;
  description?: string;
  access: Access;
  /** Path parameters by name -> what they are (every one is a string; undescribed ones say so). */
  params?: Record<string, string>;
  /** The query string, as its zod schema in contract/ reads it. */
  query?: z.ZodObject;
  /** A JSON body, as its zod schema in contract/ reads it. */
  body?: z.ZodType;
  /** A multipart/form-data body: its text fields and its `image` (see `imageForm`); with `body`, either. */
  form?: z.ZodType;
  /** The success answer; no schema means no body (204). */
  response: { status: 200 | 201 | 202 | 204; description: string; schema?: z.ZodType };
  errors?: Partial<Record<ErrorStatus | 401 | 429, string>>;
  /** An error's answer where it may carry more than `{message}` (a named schema of contract/). */
  errorAnswers?: Partial<Record<ErrorStatus, z.ZodType>>;
  /** Groups the reference by; the path's first part after /api by default. */
  tag?: string;
}

/** A route under /api that is not an API call (the reference's own page and files). */
export interface HiddenRoute {
  hidden: string;
}

declare module "fastify" {
  interface FastifyContextConfig {
    /** The route's entry in GET /api/openapi.json (server/api/openapi/). */
    docs?: RouteDocs | HiddenRoute;
  }
}

/** Route options carrying the route's docs and, where it has one, its rate limit. */
export function documented(docs: RouteDocs | HiddenRoute, limit?: FastifyContextConfig) {
  return { config: { ...limit, docs } };
}

export const isHidden = (docs: RouteDocs | HiddenRoute): docs is HiddenRoute => "hidden" in docs;

/**
 * A multipart form: the given text fields (or none) and an `image` file of at most `maxBytes`,
 * whose type the server reads from its bytes; required unless `imageOptional`.
 */
export function imageForm(maxBytes: number, fields?: z.ZodType, imageOptional = false) {
  const file = z
    .file()
    .describe(
      `${IMAGE_TYPES.join(", ")}, at most ${String(maxBytes)} bytes (the type is read from the bytes)`,
    );
  const image = z.object({ image: imageOptional ? file.optional() : file });
  return fields ? z.intersection(fields, image) : image;
}
