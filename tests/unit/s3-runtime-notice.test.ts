import { Readable } from "node:stream";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createS3Storage } from "../../core/media/s3-storage.js";
import { startTestS3, type TestS3 } from "../support/s3.js";

// On Node 20 the AWS SDK prints, from every process that makes a client, that its 2027 releases
// will need Node 22. Node 20 is supported here while these machines run it, and that end is
// recorded in docs/decisions/009-node-runtimes.md: the adapter keeps the notice out of the logs.

let s3: TestS3;
const warnings: string[] = [];
const onWarning = (warning: Error) => warnings.push(warning.message);

beforeAll(async () => {
  s3 = await startTestS3();
  process.on("warning", onWarning);
});

afterAll(async () => {
  process.off("warning", onWarning);
  await s3.close();
});

it(`stores and reads a file on Node ${process.version} with no runtime notice from the SDK`, async () => {
  const storage = createS3Storage({
    endpoint: s3.env.S3_ENDPOINT,
    region: "us-east-1",
    bucket: "images",
    accessKeyId: "S3RVER",
    secretAccessKey: "S3RVER",
    publicBaseUrl: "http://127.0.0.1/uploads",
  });
  try {
    await storage.put("images/notice/a.txt", Buffer.from("hello"), "text/plain");
    const opened = await storage.open("images/notice/a.txt");
    const chunks: Buffer[] = [];
    for await (const chunk of opened?.body ?? Readable.from([])) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe("hello");
  } finally {
    storage.close();
  }
  // Warnings are emitted on a later tick.
  await new Promise((resolve) => setImmediate(resolve));
  expect(warnings).toEqual([]);
});
