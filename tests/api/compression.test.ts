import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { negotiatedEncoding } from "../../server/plugins/compression.js";
import { rawGet } from "../support/http.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const at = (path: string) => `${server.url}${path}`;

const decoders: Record<string, (body: Buffer) => Buffer> = {
  br: brotliDecompressSync,
  gzip: gunzipSync,
};

describe("compression of whole answers", () => {
  // The OpenAPI document: a JSON answer of tens of KB, the same for everyone, not kept.
  const PATH = "/api/openapi.json";

  it("sends each client the encoding it prefers most, whole, with its length", async () => {
    const plain = await rawGet(at(PATH), { "accept-encoding": "identity" });
    expect(plain.status).toBe(200);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.body.length).toBeGreaterThan(1024);
    for (const [accept, expected] of [
      ["br, gzip", "br"],
      ["gzip, deflate, br", "br"],
      ["gzip", "gzip"],
      ["x-gzip", "gzip"],
      ["*", "gzip"],
      ["gzip;q=1, br;q=0.5", "gzip"],
      ["br;q=0, gzip", "gzip"],
    ] as const) {
      const reply = await rawGet(at(PATH), { "accept-encoding": accept });
      expect(reply.status, accept).toBe(200);
      expect(reply.headers["content-encoding"], accept).toBe(expected);
      expect(reply.headers.vary, accept).toContain("accept-encoding");
      expect(Number(reply.headers["content-length"]), accept).toBe(reply.body.length);
      expect(reply.body.length, accept).toBeLessThan(plain.body.length / 3);
      expect(decoders[expected]?.(reply.body).equals(plain.body), accept).toBe(true);
    }
  });

  it("leaves an answer uncompressed when the client takes neither encoding", async () => {
    for (const accept of ["identity", "deflate", "br;q=0, gzip;q=0"]) {
      const reply = await rawGet(at(PATH), { "accept-encoding": accept });
      expect(reply.headers["content-encoding"], accept).toBeUndefined();
      expect(JSON.parse(reply.body.toString("utf8"))).toHaveProperty("openapi");
    }
  });

  it("leaves small answers and clients that ask for none as they are", async () => {
    const small = await rawGet(at("/livez"), { "accept-encoding": "br" });
    expect(small.status).toBe(200);
    expect(small.body.length).toBeLessThan(1024);
    expect(small.headers["content-encoding"]).toBeUndefined();
    const refused = await rawGet(at(PATH), { "accept-encoding": "br", "x-no-compression": "1" });
    expect(refused.headers["content-encoding"]).toBeUndefined();
  });
});

describe("negotiatedEncoding", () => {
  it("chooses as @fastify/compress does: the highest q, brotli on a tie", () => {
    expect(negotiatedEncoding(undefined)).toBeUndefined();
    expect(negotiatedEncoding("")).toBeUndefined();
    expect(negotiatedEncoding("BR")).toBe("br");
    expect(negotiatedEncoding("gzip;q=0.8, br;q=0.8")).toBe("br");
    expect(negotiatedEncoding("gzip;q=0.9, br;q=0.8")).toBe("gzip");
    expect(negotiatedEncoding("br;q=0.5, *;q=0.6")).toBe("gzip");
    expect(negotiatedEncoding("deflate, identity")).toBeUndefined();
    expect(negotiatedEncoding("br;level=3, gzip;q=0.1")).toBe("gzip");
    expect(negotiatedEncoding("br; q = 0.4, gzip;q=0.3")).toBe("br");
  });
});
