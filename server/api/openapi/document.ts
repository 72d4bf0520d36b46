import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { namedResponseSchemas } from "../../../contract/responses.js";
import { isHidden, type HiddenRoute, type RouteDocs } from "./route-docs.js";

/** One method of one route under /api, as it was registered. */
export interface ApiRoute {
  method: string;
  url: string;
  docs: RouteDocs | HiddenRoute | undefined;
  rateLimited: boolean;
}

const CALL_METHODS = new Set(["GET", "POST", "PUT", "PATCH", "DELETE"]);

/**
 * The route table of /api, filled as routes are registered (Fastify's onRoute hook): call before
 * any route. HEAD and OPTIONS answers are Fastify's and the CORS plugin's, not calls of their own.
 */
export function collectApiRoutes(server: FastifyInstance): ApiRoute[] {
  const routes: ApiRoute[] = [];
  server.addHook("onRoute", (route) => {
    if (!route.url.startsWith("/api/")) return;
    for (const method of [route.method].flat()) {
      if (!CALL_METHODS.has(method)) continue;
      routes.push({
        method,
        url: route.url,
        docs: route.config?.docs,
        rateLimited: route.config?.rateLimit !== undefined,
      });
    }
  });
  return routes;
}

/** `METHOD /path` of every route registered without docs: each should have an entry. */
export const undocumentedRoutes = (routes: readonly ApiRoute[]) =>
  routes.filter((route) => route.docs === undefined).map((route) => `${route.method} ${route.url}`);

/** `/api/posts/:id` -> `/api/posts/{id}`. */
export const openApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, "{$1}");

const pathParams = (url: string) =>
  [...url.matchAll(/:([A-Za-z0-9_]+)/g)].flatMap((match) => (match[1] ? [match[1]] : []));

const pascal = (words: string[]) =>
  words.map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join("");

/** `PUT /api/posts/like/:id` -> `putPostsLikeById`. */
function operationIdOf(method: string, url: string) {
  const words = url
    .replace(/^\/api\//, "")
    .split(/[/-]/)
    .filter(Boolean)
    .map((part) => (part.startsWith(":") ? `by${pascal([part.slice(1)])}` : part));
  return method.toLowerCase() + pascal(words);
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

type JsonSchema = Record<string, unknown>;

/** zod's JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1) without its document headers. */
function componentSchemas(registry: z.core.$ZodRegistry<{ id: string }>, io: "input" | "output") {
  const { schemas } = z.toJSONSchema(registry, {
    io,
    uri: (name) => `#/components/schemas/${name}`,
    unrepresentable: "any",
  });
  return Object.fromEntries(
    Object.entries(schemas).map(([name, schema]) => [
      name,
      Object.fromEntries(
        Object.entries(schema).filter(([key]) => key !== "$schema" && key !== "$id"),
      ),
    ]),
  );
}

/** Query parameters from a query schema's properties. */
function queryParameters(query: z.ZodObject) {
  const schema = z.toJSONSchema(query, { io: "input", unrepresentable: "any" }) as JsonSchema;
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...rest } = property;
    return {
      name,
      in: "query",
      required: required.has(name),
      ...(typeof description === "string" ? { description } : {}),
      schema: wholeNumberOf(rest) ?? rest,
    };
  });
}

/** A pattern that admits only a whole number from 1 (`^[1-9]\d{0,8}$`, as pageNumber's). */
const WHOLE_NUMBER_PATTERN = /^\^\[1-9\]\\d\{0,\d+\}\$$/;

/**
 * A text parameter that can only be a whole number from 1 (pageNumber), as the number it is: the
 * query string carries it as text either way, and typed clients then take a number (issue 34).
 */
function wholeNumberOf(schema: JsonSchema): JsonSchema | undefined {
  if (schema.type !== "string" || typeof schema.pattern !== "string") return undefined;
  if (!WHOLE_NUMBER_PATTERN.test(schema.pattern)) return undefined;
  const { default: fallback } = schema;
  return {
    type: "integer",
    minimum: 1,
    ...(fallback === undefined ? {} : { default: Number(fallback) }),
  };
}

const DEFAULT_ERRORS = {
  400: "Invalid input: `message` says what, `errors` names each field with its problem",
  401: "No token, or one whose session has ended",
  403: "Not allowed",
  413: "The image is larger than the limit",
  415: "The image is not a jpg, png or gif",
  429: "Too many requests from this address: try again in the time the message says",
} as const;

/** The refusals a route can answer with, and when (DESIGN.md 5). */
function errorsOf(route: ApiRoute, docs: RouteDocs) {
  const errors: Partial<Record<number, string>> = {};
  if (docs.body ?? docs.query ?? docs.form) errors[400] = DEFAULT_ERRORS[400];
  if (docs.access !== "anyone" && docs.access !== "anyone-or-signed-in") {
    errors[401] = DEFAULT_ERRORS[401];
  }
  if (docs.access === "admin") errors[403] = "The caller is not an admin";
  if (docs.access === "session") errors[403] = "An API token: account changes need a session";
  if (docs.access === "signed-in" && route.method !== "GET") errors[403] = "A read-only API token";
  if (docs.form) {
    errors[413] = DEFAULT_ERRORS[413];
    errors[415] = DEFAULT_ERRORS[415];
  }
  if (route.rateLimited) errors[429] = DEFAULT_ERRORS[429];
  return { ...errors, ...docs.errors };
}

const json = (schema: JsonSchema) => ({ content: { "application/json": { schema } } });

export interface DocumentInfo {
  title: string;
  description: string;
}

/**
 * The OpenAPI 3.1 document of every documented route: paths from the route table, schemas from
 * the contract's zod schemas (named ones become components, request and answer bodies too).
 * `servers` is `/`, relative: calls go to the origin the document was read from, the one the
 * reference page's CSP lets it call (PUBLIC_URL may name another address, a proxy's).
 */
export function buildOpenApiDocument(routes: readonly ApiRoute[], info: DocumentInfo) {
  const inputs = z.registry<{ id: string }>();
  const outputs = z.registry<{ id: string }>();
  for (const [name, schema] of namedResponseSchemas) outputs.add(schema, { id: name });
  const taken = new Set(namedResponseSchemas.keys());
  const nameOf = (registry: typeof inputs, schema: z.ZodType, wanted: string) => {
    const known = registry.get(schema);
    if (known) return known.id;
    if (taken.has(wanted)) throw new Error(`Two schemas of the API reference are named ${wanted}`);
    taken.add(wanted);
    registry.add(schema, { id: wanted });
    return wanted;
  };

  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const docs = route.docs;
    if (!docs || isHidden(docs)) continue;
    const operationId = operationIdOf(route.method, route.url);
    const base = pascal([operationId]);
    const parameters = [
      ...pathParams(route.url).map((name) => ({
        name,
        in: "path",
        required: true,
        description: docs.params?.[name] ?? name,
        schema: { type: "string" },
      })),
      ...(docs.query ? queryParameters(docs.query) : []),
    ];
    const content = {
      ...(docs.body
        ? { "application/json": { schema: ref(nameOf(inputs, docs.body, `${base}Body`)) } }
        : {}),
      ...(docs.form
        ? { "multipart/form-data": { schema: ref(nameOf(inputs, docs.form, `${base}Form`)) } }
        : {}),
    };
    const requestBody = Object.keys(content).length > 0 ? { required: true, content } : undefined;
    const success = docs.response;
    const responses: Record<string, unknown> = {
      [String(success.status)]: {
        description: success.description,
        ...(success.schema ? json(ref(nameOf(outputs, success.schema, `${base}Answer`))) : {}),
      },
    };
    const errorAnswers: Partial<Record<string, z.ZodType>> = docs.errorAnswers ?? {};
    for (const [status, description] of Object.entries(errorsOf(route, docs))) {
      const more = errorAnswers[status];
      const schema = more
        ? { anyOf: [ref(nameOf(outputs, more, `${base}Error${status}`)), ref("Error")] }
        : status === "400"
          ? { anyOf: [ref("ValidationError"), ref("Error")] }
          : ref("Error");
      responses[status] = { description, ...json(schema) };
    }
    // An open call says so (`[]`: no scheme needed), rather than saying nothing.
    const security =
      docs.access === "anyone"
        ? []
        : docs.access === "anyone-or-signed-in"
          ? [{}, { bearerAuth: [] }]
          : [{ bearerAuth: [] }];
    const path = (paths[openApiPath(route.url)] ??= {});
    path[route.method.toLowerCase()] = {
      operationId,
      summary: docs.summary,
      ...(docs.description ? { description: docs.description } : {}),
      tags: [docs.tag ?? route.url.split("/")[2] ?? "api"],
      security,
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(requestBody ? { requestBody } : {}),
      responses,
    };
  }

  return {
    openapi: "3.1.0",
    info: { title: info.title, version: "1", description: info.description },
    servers: [{ url: "/", description: "This site" }],
    paths,
    components: {
      schemas: { ...componentSchemas(outputs, "output"), ...componentSchemas(inputs, "input") },
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          description:
            "The `token` of POST /api/auth/login, sent as `Authorization: Bearer <token>`. It " +
            "expires, and ends at logout, at a password change and when the account is suspended. " +
            "A personal API token (`blog_…`, POST /api/tokens) goes in the same header: a `read` " +
            "token may only read, and no token reaches account changes (403).",
        },
      },
    },
  };
}

export type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>;
