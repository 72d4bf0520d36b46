import type { FastifyReply, FastifyRequest } from "fastify";
import type { WorkSlots } from "../core/shared/work-slots.js";

/**
 * Waits for `turn` with the connection's idle limit off: a request waiting its turn moves no
 * bytes, and must not be cut for it. The limit applies again once the wait is over.
 */
export async function waitWithoutIdleLimit<T>(request: FastifyRequest, turn: Promise<T>) {
  const { socket } = request.raw;
  const idleMs = socket.timeout ?? 0;
  socket.setTimeout(0);
  try {
    return await turn;
  } finally {
    if (!socket.destroyed) socket.setTimeout(idleMs);
  }
}

/**
 * A slot in `slots` for one answer, held until the answer is over however it ends (sent, failed,
 * its client gone) and at most `slotMs`: a client that reads slowly enough never to be idle is cut
 * off then. False when the client left while it waited (nothing is to be sent).
 */
export async function holdSlotForAnswer(
  request: FastifyRequest,
  reply: FastifyReply,
  slots: WorkSlots,
  slotMs: number,
) {
  const release = await waitWithoutIdleLimit(request, slots.acquire());
  if (request.raw.socket.destroyed) {
    release();
    return false;
  }
  const turn = setTimeout(() => {
    request.log.warn({ slotMs }, "answer not taken in time; cut off");
    reply.raw.destroy();
  }, slotMs);
  reply.raw.once("close", () => {
    clearTimeout(turn);
    release();
  });
  return true;
}
