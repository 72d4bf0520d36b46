import { mkdtemp, rm } from "node:fs/promises";
import type { Server } from "node:http";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { freePort } from "./test-server.js";

// s3rver speaks the S3 protocol over HTTP from a folder: the adapter is tested against a server,
// not against a mock of the SDK. It ships no types; this is the part the tests use.
interface S3rverInstance {
  run(): Promise<unknown>;
  close(): Promise<unknown>;
  httpServer?: Server;
}
type S3rverClass = new (options: {
  port: number;
  address: string;
  directory: string;
  silent: boolean;
  configureBuckets: { name: string }[];
}) => S3rverInstance;

const S3rver = createRequire(import.meta.url)("s3rver") as S3rverClass;

export interface TestS3 {
  /** The S3_* variables that point a server at this bucket. */
  env: Record<string, string>;
  /** Where s3rver keeps the bucket's files on disk. */
  directory: string;
  close(): Promise<void>;
}

/** An S3-compatible server on a free port with one empty bucket, `images`. */
export async function startTestS3(): Promise<TestS3> {
  const directory = await mkdtemp(path.join(os.tmpdir(), "blog-s3-"));
  const port = await freePort();
  const s3rver = new S3rver({
    port,
    address: "127.0.0.1",
    directory,
    silent: true,
    configureBuckets: [{ name: "images" }],
  });
  await s3rver.run();
  return {
    env: {
      S3_ENDPOINT: `http://127.0.0.1:${String(port)}`,
      S3_BUCKET: "images",
      S3_REGION: "us-east-1",
      // s3rver's own fixed credentials; it checks every request's signature against them.
      S3_ACCESS_KEY_ID: "S3RVER",
      S3_SECRET_ACCESS_KEY: "S3RVER",
    },
    directory,
    async close() {
      s3rver.httpServer?.closeAllConnections();
      await s3rver.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
