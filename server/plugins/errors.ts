import type { FastifyError, FastifyInstance } from "fastify";
import { DomainError, STATUS_OF, TooManyAttempts } from "../../core/shared/errors.js";

const isFastifyError = (error: unknown): error is FastifyError =>
  error instanceof Error && "statusCode" in error && typeof error.statusCode === "number";

/** A thrown value that carries its own 4xx (Fastify's parsers, the rate limiter). */
function clientErrorOf(error: unknown): { status: number; message: string } | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const { statusCode, message } = error as { statusCode?: unknown; message?: unknown };
  if (typeof statusCode !== "number" || statusCode < 400 || statusCode >= 500) return undefined;
  return { status: statusCode, message: typeof message === "string" ? message : "Bad request" };
}

/** One envelope for every error: `{message}` plus `errors` for validation; nothing internal. */
export function registerErrorHandling(app: FastifyInstance) {
  app.setErrorHandler((error: unknown, request, reply) => {
    if (error instanceof DomainError) {
      if (error instanceof TooManyAttempts) {
        void reply.header("retry-after", String(error.retryAfterSeconds));
      }
      const body = error.errors
        ? { message: error.message, ...error.details, errors: error.errors }
        : { message: error.message, ...error.details };
      return reply.status(STATUS_OF[error.kind]).send(body);
    }
    if (isFastifyError(error) && error.code === "FST_REQ_FILE_TOO_LARGE") {
      return reply.status(413).send({ message: "File size is too large" });
    }
    const client = clientErrorOf(error);
    if (client) return reply.status(client.status).send({ message: client.message });
    request.log.error({ err: error }, "request failed");
    return reply.status(500).send({ message: "Something went wrong, please try again later" });
  });

  app.setNotFoundHandler((request, reply) =>
    reply
      .status(404)
      .send({ message: `Not found: ${request.method} ${request.url.split("?")[0] ?? ""}` }),
  );
}
