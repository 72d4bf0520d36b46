import type { FastifyInstance, FastifyPluginCallback, FastifyRequest } from "fastify";
import {
  SUBSCRIBER_IMPORT_MAX_BYTES,
  subscriberMessages as messages,
} from "../../../contract/newsletter.js";
import { invalid, tooLarge } from "../../../core/shared/errors.js";

// A subscriber list arrives one of two ways (decision 028): the file itself as the body
// (`Content-Type: text/csv`, `?consent=yes`), as curl sends it with --data-binary, or a multipart
// form with the file as its `file` field and `consent` beside it, as a page's form or the image
// uploads of this API send theirs. Either way at most 5 MB, refused as it arrives.

const codeOf = (error: unknown) =>
  typeof error === "object" && error !== null && "code" in error ? error.code : undefined;

/** A scope whose routes also take a CSV body, with its size refusal in the API's words. */
export function subscriberImportScope(
  routes: (scope: FastifyInstance) => void,
): FastifyPluginCallback {
  return (scope, _options, done) => {
    scope.addContentTypeParser(
      ["text/csv", "text/plain"],
      { parseAs: "buffer", bodyLimit: SUBSCRIBER_IMPORT_MAX_BYTES },
      (_request, body, next) => {
        next(null, body);
      },
    );
    // Thrown on to the API's one error handler, which answers every DomainError.
    scope.setErrorHandler((error) => {
      if (codeOf(error) === "FST_ERR_CTP_BODY_TOO_LARGE") throw tooLarge(messages.tooLarge);
      throw error;
    });
    routes(scope);
    done();
  };
}

/** The uploaded file and the import's options (the query's, or the form's fields). */
export async function readCsvUpload(request: FastifyRequest) {
  const query = (request.query ?? {}) as Record<string, unknown>;
  if (Buffer.isBuffer(request.body)) return { file: request.body, options: query };
  if (!request.isMultipart()) throw invalid(messages.noFile);
  const fields: Record<string, unknown> = {};
  let file: Buffer | undefined;
  const parts = request.parts({
    limits: { fileSize: SUBSCRIBER_IMPORT_MAX_BYTES, files: 1, fields: 10 },
  });
  try {
    for await (const part of parts) {
      if (part.type === "file") {
        const bytes = await part.toBuffer();
        if (part.fieldname === "file") file = bytes;
      } else {
        fields[part.fieldname] = part.value;
      }
    }
  } catch (error) {
    if (codeOf(error) === "FST_REQ_FILE_TOO_LARGE") throw tooLarge(messages.tooLarge);
    throw invalid(messages.noFile);
  }
  if (!file) throw invalid(messages.noFile);
  return { file, options: { ...query, ...fields } };
}
