import type { FastifyRequest } from "fastify";

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
  for await (const part of parts) {
    if (part.type === "file") {
      const bytes = await part.toBuffer();
      if (part.fieldname === "image" && bytes.length > 0) form.image = bytes;
    } else if (typeof part.value === "string") {
      form.fields[part.fieldname] = part.value;
    }
  }
  return form;
}
