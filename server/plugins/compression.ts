import { promisify } from "node:util";
import zlib from "node:zlib";
import compress from "@fastify/compress";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { LARGE_BODY_BYTES } from "../web/page-cache.js";

/**
 * Quality 4 compresses dynamic JSON and HTML nearly as well as 11 at a fraction of the CPU. A
 * 256 KB window (not 4 MB) loses nothing on pages of ~100 KB, and a long stream (a whole list of
 * posts) no longer holds ~100 MB of native memory while it is compressed.
 */
const BROTLI_PARAMS = {
  [zlib.constants.BROTLI_PARAM_QUALITY]: 4,
  [zlib.constants.BROTLI_PARAM_LGWIN]: 18,
};
/** What @fastify/compress leaves alone: smaller bodies gain nothing from compression. */
const THRESHOLD = 1024;
/** The types @fastify/compress compresses by its own rule (others it looks up in mime-db). */
const COMPRESSIBLE =
  /^text\/(?!event-stream)|(?:\+|\/)json(?:;|$)|(?:\+|\/)text(?:;|$)|(?:\+|\/)xml(?:;|$)/u;

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/**
 * Up to this size (a JSON answer: a page of posts, a post, a page of search results, 6-10 KB) a
 * body is compressed on the JavaScript thread itself: less than the hand-off to the thread pool
 * and back costs an answer in waiting (measured on 2 cores: a search made afresh ran ~25 % more a
 * second, its p99 from 23-25 ms to 17-19). Pages (30-150 KB) go to the pool.
 */
const ON_THREAD_MAX = 16_384;

/**
 * Brotli for those answers, at quality 2: a 10 KB page of search results in ~45 µs rather than
 * ~90-130 at quality 4, and ~4 % larger (2.3 KB rather than 2.2). They are made afresh for each
 * request; kept answers are compressed once, harder (page-cache.ts).
 */
const ON_THREAD_BROTLI = { ...BROTLI_PARAMS, [zlib.constants.BROTLI_PARAM_QUALITY]: 2 };
const onThreadBrotli = (body: Buffer) =>
  zlib.brotliCompressSync(body, { params: ON_THREAD_BROTLI });

function compressOnThread(body: Buffer, encoding: Encoding) {
  return encoding === "br" ? onThreadBrotli(body) : zlib.gzipSync(body);
}

function compressInPool(body: Buffer, encoding: Encoding) {
  return encoding === "br"
    ? brotli(body, {
        params: {
          ...BROTLI_PARAMS,
          // A large answer (a post's JSON with thousands of comments) at quality 1: ~2.5 times
          // less CPU for a body ~1 % larger.
          ...(body.length > LARGE_BODY_BYTES ? { [zlib.constants.BROTLI_PARAM_QUALITY]: 1 } : {}),
          [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length,
        },
      })
    : gzip(body);
}

type Encoding = "br" | "gzip";

/**
 * The q of each of br and gzip in an Accept-Encoding, as @fastify/compress reads it: `*` and
 * `x-gzip` stand for gzip; a first parameter other than q counts as q=0.
 */
function acceptedEncodings(acceptEncoding: string) {
  /** Each encoding, its q, and whether it was named (not `*`). */
  const accepted: [Encoding, number, boolean][] = [];
  for (const part of acceptEncoding.toLowerCase().split(",")) {
    const [token = "", ...params] = part.split(";");
    const name = token.trim();
    const encoding = name === "br" ? "br" : /^(?:gzip|x-gzip|\*)$/.test(name) ? "gzip" : undefined;
    if (encoding === undefined) continue;
    const q =
      params.length === 0
        ? 1
        : Number.parseFloat(/^\s*q\s*=\s*([\d.]*)/.exec(params[0] ?? "")?.[1] ?? "") || 0;
    accepted.push([encoding, q, name !== "*"]);
  }
  return accepted;
}

/**
 * The encoding @fastify/compress would choose for this Accept-Encoding (of br and gzip): the
 * highest q, brotli on a tie. Undefined when neither is accepted.
 */
export function negotiatedEncoding(acceptEncoding: string | undefined): Encoding | undefined {
  if (acceptEncoding === undefined) return undefined;
  let best: Encoding | undefined;
  let bestQ = 0;
  for (const [encoding, q] of acceptedEncodings(acceptEncoding)) {
    if (q > bestQ || (q === bestQ && q > 0 && encoding === "br")) {
      best = encoding;
      bestQ = q;
    }
  }
  return best;
}

/**
 * Whether a client takes gzip (at any q above 0; gzip named outranks `*`, RFC 9110 12.5.3): an
 * answer kept as gzip pieces is sent so.
 */
export function acceptsGzip(acceptEncoding: string | undefined) {
  if (acceptEncoding === undefined) return false;
  const gzip = acceptedEncodings(acceptEncoding).filter(([encoding]) => encoding === "gzip");
  const named = gzip.filter(([, , isNamed]) => isNamed);
  return (named.length > 0 ? named : gzip).some(([, q]) => q > 0);
}

/** Adds Accept-Encoding to Vary as @fastify/compress does. */
export function varyOnEncoding(reply: FastifyReply) {
  const vary = reply.getHeader("vary");
  if (vary === undefined) {
    void reply.header("vary", "accept-encoding");
    return;
  }
  const values = (Array.isArray(vary) ? vary : [vary]).map(String);
  if (!values.some((value) => value.includes("accept-encoding"))) {
    void reply.header("vary", [...values, "accept-encoding"].join(", "));
  }
}

/** A body that is already gzip or deflate data (@fastify/compress passes those through). */
function alreadyCompressed(body: Buffer) {
  const head = body.readUInt16BE(0);
  return head === 0x1f8b || ((head & 0x0f00) === 0x0800 && head % 31 === 0);
}

/**
 * The body in one piece, compressed in one call (in libuv's thread pool unless it is small), or
 * undefined when @fastify/compress is to decide (it then does exactly what it did before).
 */
async function compressWhole(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
): Promise<Buffer | undefined> {
  if (typeof payload !== "string" && !Buffer.isBuffer(payload)) return undefined;
  if (reply.hasHeader("content-encoding") || reply.hasHeader("content-range")) return undefined;
  if (reply.statusCode === 206 || request.headers["x-no-compression"] !== undefined)
    return undefined;
  const type = reply.getHeader("content-type");
  if (typeof type !== "string" || !COMPRESSIBLE.test(type)) return undefined;
  const encoding = negotiatedEncoding(request.headers["accept-encoding"]);
  if (encoding === undefined) return undefined;
  const body = typeof payload === "string" ? Buffer.from(payload) : payload;
  if (body.length < THRESHOLD || alreadyCompressed(body)) return undefined;
  const compressed =
    body.length <= ON_THREAD_MAX
      ? compressOnThread(body, encoding)
      : await compressInPool(body, encoding);
  varyOnEncoding(reply);
  void reply.header("content-encoding", encoding).header("content-length", compressed.length);
  return compressed;
}

/**
 * Compression of answers. A body that is whole when it is sent (every page, every JSON answer) is
 * compressed in one call, a page in libuv's thread pool, a small answer at once (ON_THREAD_MAX):
 * streaming it through @fastify/compress costs the one JavaScript thread a stream pipeline per
 * answer. Streams (a whole list of posts, files) and anything
 * this does not take up go through @fastify/compress as before, so what each client gets is
 * decided the same way. Register after the hooks that keep plain bodies (shared answers).
 */
export async function registerCompression(server: FastifyInstance) {
  server.addHook("onSend", async (request, reply, payload) => {
    return (await compressWhole(request, reply, payload)) ?? payload;
  });
  await server.register(compress, {
    encodings: ["br", "gzip"],
    brotliOptions: { params: BROTLI_PARAMS },
  });
}
