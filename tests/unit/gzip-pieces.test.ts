import { randomBytes } from "node:crypto";
import zlib from "node:zlib";
import { describe, expect, it } from "vitest";
import { crc32Combine, deflatedPiece, gzipOfPieces } from "../../server/web/gzip-pieces.js";

describe("gzip from pieces compressed apart", () => {
  it("combines CRCs as one CRC over the joined bytes would be", () => {
    for (const [a, b] of [
      [0, 0],
      [0, 1],
      [1, 0],
      [3, 5],
      [17, 1000],
      [4096, 65_537],
    ] as const) {
      const first = randomBytes(a);
      const second = randomBytes(b);
      expect(crc32Combine(zlib.crc32(first), zlib.crc32(second), b)).toBe(
        zlib.crc32(Buffer.concat([first, second])),
      );
    }
  });

  it("is one gzip member that any gunzip reads back as the pieces in order", () => {
    const head = Buffer.from('{"_id":"1","title":"Two thousand comments","comments":');
    const comments = Buffer.from(
      JSON.stringify(
        Array.from({ length: 2000 }, (_, n) => ({ _id: String(n), text: `Comment ${String(n)}` })),
      ),
    );
    const close = Buffer.from("}");
    const joined = gzipOfPieces([
      deflatedPiece(head),
      deflatedPiece(comments, 1),
      deflatedPiece(close),
    ]);
    expect(joined.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    expect(zlib.gunzipSync(joined).toString()).toBe(`${head.toString()}${comments.toString()}}`);
    // A piece may be empty, and the whole may be nothing.
    expect(
      zlib
        .gunzipSync(gzipOfPieces([deflatedPiece(Buffer.alloc(0)), deflatedPiece(close)]))
        .toString(),
    ).toBe("}");
    expect(zlib.gunzipSync(gzipOfPieces([])).length).toBe(0);
  });

  it("is refused by gunzip when a piece is not the bytes its CRC was taken of", () => {
    const piece = deflatedPiece(Buffer.from("the comments as they were"));
    const forged = { ...piece, crc: (piece.crc ^ 1) >>> 0 };
    expect(() => zlib.gunzipSync(gzipOfPieces([forged]))).toThrow();
  });
});
