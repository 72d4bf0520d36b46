import type { FastifyRequest } from "fastify";

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
