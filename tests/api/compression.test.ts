import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acceptsGzip, negotiatedEncoding } from "../../server/plugins/compression.js";
import { signInAdmin } from "../support/factories.js";
import { client, rawGet, rawRequest } from "../support/http.js";
import { addCategory, addComment, addPost } from "../support/post-fixtures.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

let server: TestServer;
/**
 * A draft's JSON, asked by its author: a small answer (a few KB) made for its asker, so never a
 * kept one, compressed on the JavaScript thread itself.
 */
let smallPath: string;
let signedIn: Record<string, string>;
/** A published post whose comments' JSON is above 16 KB (a like's answer then comes in pieces). */
let talkedAbout: { _id: string };

beforeAll(async () => {
  server = await startTestServer();
  const api = client(server.url);
  const admin = await signInAdmin(server, api);
  await addCategory(api, admin, "Notes");
  const post = await addPost(api, admin, {
    category: "Notes",
    description: "A paragraph of a post, long enough to be worth compressing. ".repeat(60),
    status: "draft",
  });
  smallPath = `/api/posts/${post._id}`;
  signedIn = { authorization: `Bearer ${admin.token}` };
  talkedAbout = await addPost(api, admin, { category: "Notes" });
  for (let n = 0; n < 12; n++) {
    await addComment(
      api,
      admin,
      talkedAbout._id,
      `Remark ${String(n)}: ${"a long thought ".repeat(120)}`,
    );
  }
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

  /** What `path` sends for each Accept-Encoding; returns the plain body's length. */
  async function expectEncodings(path: string, asker: Record<string, string>) {
    const plain = await rawGet(at(path), { ...asker, "accept-encoding": "identity" });
    expect(plain.status).toBe(200);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    for (const [accept, expected] of [
      ["br, gzip", "br"],
      ["gzip, deflate, br", "br"],
      ["gzip", "gzip"],
      ["x-gzip", "gzip"],
      ["*", "gzip"],
      ["gzip;q=1, br;q=0.5", "gzip"],
      ["br;q=0, gzip", "gzip"],
    ] as const) {
      const reply = await rawGet(at(path), { ...asker, "accept-encoding": accept });
      expect(reply.status, accept).toBe(200);
      expect(reply.headers["content-encoding"], accept).toBe(expected);
      expect(reply.headers.vary, accept).toContain("accept-encoding");
      expect(Number(reply.headers["content-length"]), accept).toBe(reply.body.length);
      expect(reply.body.length, accept).toBeLessThan(plain.body.length / 3);
      expect(decoders[expected]?.(reply.body).equals(plain.body), accept).toBe(true);
    }
    return plain.body.length;
  }

  it("sends each client the encoding it prefers most, whole, with its length", async () => {
    // Over 16 KB: compressed in the thread pool.
    expect(await expectEncodings(PATH, {})).toBeGreaterThan(16_384);
  });

  it("does the same for a small answer, compressed on the JavaScript thread", async () => {
    const length = await expectEncodings(smallPath, signedIn);
    expect(length).toBeGreaterThan(1024);
    expect(length).toBeLessThanOrEqual(16_384);
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

describe("a like's answer on a post with many comments (decision 029)", () => {
  const like = (accept: string) =>
    rawRequest("PUT", at(`/api/posts/like/${talkedAbout._id}`), {
      ...signedIn,
      "accept-encoding": accept,
    });

  it("is gzip put together from kept pieces, exactly the post's JSON, whenever gzip is taken", async () => {
    const plain = await like("identity");
    expect(plain.status).toBe(200);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    const json = JSON.parse(plain.body.toString("utf8")) as {
      likesCount: number;
      comments: unknown[];
    };
    expect(json.comments).toHaveLength(12);
    expect(plain.body.length).toBeGreaterThan(16_384);
    // Each like moves the count, and the joined answer is still the post's JSON exactly.
    for (const [accept, likes] of [
      ["br, gzip", 0],
      ["gzip", 1],
      ["gzip;q=0.5, br", 0],
    ] as const) {
      const reply = await like(accept);
      expect(reply.status, accept).toBe(200);
      expect(reply.headers["content-encoding"], accept).toBe("gzip");
      expect(reply.headers.vary, accept).toContain("accept-encoding");
      expect(reply.body.length, accept).toBeLessThan(plain.body.length / 3);
      const body = gunzipSync(reply.body).toString("utf8");
      const read = await rawGet(at(`/api/posts/${talkedAbout._id}`), {
        "accept-encoding": "identity",
      });
      expect(body, accept).toBe(read.body.toString("utf8"));
      expect((JSON.parse(body) as { likesCount: number }).likesCount, accept).toBe(likes);
    }
  });

  it("is brotli made whole for a client that takes brotli alone", async () => {
    const reply = await like("br");
    expect(reply.headers["content-encoding"]).toBe("br");
    expect(JSON.parse(brotliDecompressSync(reply.body).toString("utf8"))).toHaveProperty(
      "comments",
    );
    await like("identity");
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

describe("acceptsGzip", () => {
  it("takes gzip named at any q above 0, or `*` when gzip is not named", () => {
    expect(acceptsGzip(undefined)).toBe(false);
    expect(acceptsGzip("br")).toBe(false);
    expect(acceptsGzip("br, gzip")).toBe(true);
    expect(acceptsGzip("x-gzip;q=0.1")).toBe(true);
    expect(acceptsGzip("*")).toBe(true);
    expect(acceptsGzip("gzip;q=0, *")).toBe(false);
    expect(acceptsGzip("br, *;q=0")).toBe(false);
  });
});
