import { LogController, type FastifyReply, type FastifyRequest } from "fastify";

// Mailed links carry their secret in the path; a log line must never hold it.
const SECRET_PATHS = [
  /^(\/api\/auth\/[^/]+\/verify\/)[^/?#]+/,
  /^(\/api\/password\/reset-password\/[^/]+\/)[^/?#]+/,
  /^(\/reset-password\/[^/]+\/)[^/?#]+/,
  /^(\/(?:api\/)?unsubscribe\/[^/]+\/)[^/?#]+/,
];

export function redactUrl(url: string): string {
  for (const pattern of SECRET_PATHS) {
    if (pattern.test(url)) return url.replace(pattern, "$1[redacted]");
  }
  return url;
}

/** What a request log line says: no headers (tokens, cookies) and no body (passwords). */
export function requestSerializer(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactUrl(request.url),
    remoteAddress: request.ip,
  };
}

/**
 * One line per request at the default level (Fastify writes two: "incoming request" and "request
 * completed"), made when the answer has gone: method, path, status and time together. A client
 * that leaves before its answer is finished is no event worth a line at `info` (issue 19).
 */
export class OneLinePerRequest extends LogController {
  override incomingRequest(request: FastifyRequest) {
    request.log.debug({ req: request }, "incoming request");
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ) {
    const details = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...details, err: error }, "request errored");
    else reply.log.info(details, "request completed");
  }

  /** A 4xx is a client's mistake, already on the request's line; a 5xx is an error of ours. */
  override defaultErrorLog(error: Error, request: FastifyRequest, reply: FastifyReply) {
    if (reply.statusCode >= 500)
      reply.log.error({ req: request, res: reply, err: error }, error.message);
    else reply.log.debug({ res: reply, err: error }, error.message);
  }

  override routeNotFound(request: FastifyRequest) {
    request.log.debug({ req: request }, "route not found");
  }

  override streamError(error: Error, request: FastifyRequest, reply: FastifyReply) {
    if ((error as NodeJS.ErrnoException).code === "ERR_STREAM_PREMATURE_CLOSE") {
      reply.log.debug({ req: request, res: reply }, "client left before the answer was sent");
    } else {
      reply.log.warn({ err: error }, "response terminated with an error with headers already sent");
    }
  }
}
