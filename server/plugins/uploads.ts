import type { FastifyReply, FastifyRequest } from "fastify";
import type { DomainError } from "../../core/shared/errors.js";
import { invalid, tooLarge } from "../../core/shared/errors.js";

/** The parser's failures in the API's words: too large stays 413, anything malformed is a 400. */
function uploadError(error: unknown): DomainError {
  const code = typeof error === "object" && error !== null && "code" in error ? error.code : "";
  if (code === "FST_REQ_FILE_TOO_LARGE") return tooLarge();
  if (code === "FST_FILES_LIMIT") return invalid("Send one image at a time");
  if (code === "FST_FIELDS_LIMIT" || code === "FST_PARTS_LIMIT") {
    return invalid("The form has too many fields");
  }
  return invalid("The upload could not be read; send it as multipart/form-data");
}

export interface ImageForm {
  fields: Record<string, string>;
  /** The bytes of the `image` file part, if one was sent. */
  image: Buffer | undefined;
}

/**
 * Reads a multipart form with one `image` file. The size limit is enforced while streaming: a
 * larger file fails with 413 before it is held whole. Any other body reads as an empty form.
 */
export async function readImageForm(request: FastifyRequest, maxBytes: number): Promise<ImageForm> {
  const form: ImageForm = { fields: {}, image: undefined };
  if (!request.isMultipart()) return form;
  const parts = request.parts({ limits: { fileSize: maxBytes, files: 1, fields: 20 } });
  try {
    for await (const part of parts) {
      if (part.type === "file") {
        const bytes = await part.toBuffer();
        if (part.fieldname === "image" && bytes.length > 0) form.image = bytes;
      } else if (typeof part.value === "string") {
        form.fields[part.fieldname] = part.value;
      }
    }
  } catch (error) {
    throw uploadError(error);
  }
  return form;
}

/**
 * A JSON body's fields as a form would send them (a call that has no image to send may send JSON):
 * texts as they are, a list of texts (tags) comma-separated; anything else is left out, so its
 * field is reported missing or invalid as a form's would be.
 */
export function jsonFields(body: unknown): ImageForm["fields"] {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return {};
  const fields: ImageForm["fields"] = {};
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    if (typeof value === "string") fields[name] = value;
    else if (Array.isArray(value) && value.every((item) => typeof item === "string")) {
      fields[name] = value.join(",");
    }
  }
  return fields;
}

/**
 * Aborts when the client leaves before its answer is sent, so an upload still waiting for its turn
 * to be decoded is dropped rather than worked on for nobody. Take it before reading the body.
 */
export function clientLeft(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once("close", () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}
