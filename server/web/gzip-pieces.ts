import zlib from "node:zlib";

/**
 * Gzip put together from pieces compressed apart (decision 029), as pigz joins its blocks: each
 * piece is a raw deflate stream ended by a sync flush (byte-aligned, not final), so pieces follow
 * one another as one stream; a final empty block ends it, and the trailer's CRC-32 is the pieces'
 * CRCs combined. A large piece kept compressed (a post's comments) then costs an answer that holds
 * it a copy, not its compression.
 */
export interface DeflatedPiece {
  deflated: Buffer;
  /** CRC-32 of the piece's bytes. */
  crc: number;
  /** How many bytes it holds uncompressed. */
  length: number;
}

export function deflatedPiece(data: Buffer, level: number = zlib.constants.Z_DEFAULT_COMPRESSION) {
  return {
    deflated: zlib.deflateRawSync(data, { level, finishFlush: zlib.constants.Z_SYNC_FLUSH }),
    crc: zlib.crc32(data),
    length: data.length,
  } satisfies DeflatedPiece;
}

/** Gzip's header: deflate, no name, no time, unknown system. */
const HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
/** A final, empty, fixed-Huffman block. */
const LAST_BLOCK = Buffer.from([3, 0]);

/** The gzip member of `pieces` one after another. */
export function gzipOfPieces(pieces: readonly DeflatedPiece[]): Buffer {
  let crc = 0;
  let length = 0;
  for (const piece of pieces) {
    crc = crc32Combine(crc, piece.crc, piece.length);
    length += piece.length;
  }
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc, 0);
  // ISIZE is the length modulo 2^32.
  trailer.writeUInt32LE(length % 2 ** 32, 4);
  return Buffer.concat([HEADER, ...pieces.map((piece) => piece.deflated), LAST_BLOCK, trailer]);
}

/** CRC-32 of the polynomial zlib uses (reflected). */
const POLYNOMIAL = 0xedb88320;

/** `matrix` (32 columns over GF(2)) times `vector`. */
function times(matrix: Uint32Array, vector: number) {
  let sum = 0;
  let rest = vector >>> 0;
  for (let index = 0; rest !== 0; index++, rest >>>= 1) {
    if (rest & 1) sum ^= matrix[index] ?? 0;
  }
  return sum >>> 0;
}

function square(into: Uint32Array, matrix: Uint32Array) {
  for (let index = 0; index < 32; index++) into[index] = times(matrix, matrix[index] ?? 0);
}

/**
 * The CRC-32 of A then B from A's CRC, B's and B's length (zlib's crc32_combine): the operator
 * that appends a zero bit, squared until it appends B's length in zeros, applied to A's CRC.
 */
export function crc32Combine(first: number, second: number, secondLength: number): number {
  if (secondLength <= 0) return first >>> 0;
  let odd = new Uint32Array(32);
  let even = new Uint32Array(32);
  odd[0] = POLYNOMIAL;
  for (let index = 1; index < 32; index++) odd[index] = 2 ** (index - 1);
  // Two zero bits, then four.
  square(even, odd);
  square(odd, even);
  let crc = first >>> 0;
  let rest = secondLength;
  // Each turn squares the operator to the next power of two bytes (8, 16, 32, … bits).
  while (rest > 0) {
    square(even, odd);
    if (rest % 2 === 1) crc = times(even, crc);
    rest = Math.floor(rest / 2);
    [odd, even] = [even, odd];
  }
  return (crc ^ second) >>> 0;
}
