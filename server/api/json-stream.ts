import { Readable } from "node:stream";

/**
 * A JSON array written as its items arrive, batch by batch: the answer is the same text
 * `JSON.stringify` would make of the whole list, but only one batch is ever in memory, and the
 * next is read only when the client has taken the last (the stream's back-pressure). The first
 * batch is read before anything is sent, so a list that cannot be read at all is an error answer,
 * not a cut-off 200.
 */
export async function jsonArrayStream(
  batches: AsyncIterator<readonly unknown[], unknown>,
): Promise<Readable> {
  const first = await batches.next();
  async function* text() {
    yield Buffer.from("[");
    let written = false;
    for (let next = first; next.done !== true; next = await batches.next()) {
      if (next.value.length === 0) continue;
      const items = next.value.map((item) => JSON.stringify(item)).join(",");
      yield Buffer.from(written ? `,${items}` : items);
      written = true;
    }
    yield Buffer.from("]");
  }
  return Readable.from(text(), { objectMode: false });
}
