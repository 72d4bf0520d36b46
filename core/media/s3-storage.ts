import type { Readable } from "node:stream";
import type * as S3 from "@aws-sdk/client-s3";
import { lazyModule } from "../../lib/lazy-module.js";
import { checkKey, type Storage, type StoredObject } from "./storage.js";

// The SDK is ~20 MB of modules: a server on local files never loads it.
const loadS3 = lazyModule<typeof S3>("@aws-sdk/client-s3");

export interface S3Options {
  /** Any S3-compatible endpoint (MinIO, R2, Ceph...); unset for AWS itself. */
  endpoint: string | undefined;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Where browsers fetch the files: the bucket's public address, a CDN, or this site's /uploads. */
  publicBaseUrl: string;
}

/** A stored file opened for reading. */
export interface OpenedObject {
  body: Readable;
  contentType: string | undefined;
  contentLength: number | undefined;
  etag: string | undefined;
}

export interface S3Storage extends Storage {
  /** The file's bytes, or undefined when there is no such key. */
  open(key: string): Promise<OpenedObject | undefined>;
  close(): void;
}

// Files are never rewritten under the same key, so any cache may keep them for good.
const IMMUTABLE = "public, max-age=31536000, immutable";

// DeleteObjects takes at most 1,000 keys a call.
const DELETE_BATCH = 1000;

const isMissing = (error: unknown) =>
  error instanceof Error && (error.name === "NoSuchKey" || error.name === "NotFound");

export function createS3Storage(options: S3Options): S3Storage {
  let client: S3.S3Client | undefined;
  const s3 = () => {
    const { S3Client } = loadS3();
    // On Node 20 the SDK prints that its releases from 2027 will need Node 22. This site runs on
    // 20 only while its machines do, with the SDK pinned by package-lock.json; that end is written
    // in docs/decisions/009-node-runtimes.md rather than in every process's log. An operator's own
    // value of the variable wins.
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
    return (client ??= new S3Client({
      region: options.region,
      ...(options.endpoint
        ? // Self-hosted servers answer at endpoint/bucket, not at bucket.endpoint.
          { endpoint: options.endpoint, forcePathStyle: true }
        : {}),
      credentials: {
        accessKeyId: options.accessKeyId,
        secretAccessKey: options.secretAccessKey,
      },
      // Newer SDKs add CRC checksums that many S3-compatible servers refuse; send them only
      // where the protocol requires one.
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
      maxAttempts: 3,
    }));
  };

  return {
    async put(key, body, contentType) {
      checkKey(key);
      const { PutObjectCommand } = loadS3();
      await s3().send(
        new PutObjectCommand({
          Bucket: options.bucket,
          Key: key,
          Body: body,
          ContentType: contentType,
          CacheControl: IMMUTABLE,
        }),
      );
    },

    async delete(keys) {
      keys.forEach(checkKey);
      const { DeleteObjectsCommand } = loadS3();
      for (let start = 0; start < keys.length; start += DELETE_BATCH) {
        const batch = keys.slice(start, start + DELETE_BATCH);
        const answer = await s3().send(
          new DeleteObjectsCommand({
            Bucket: options.bucket,
            Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
          }),
        );
        const failed = (answer.Errors ?? []).filter((error) => error.Code !== "NoSuchKey");
        if (failed.length > 0) {
          throw new Error(
            `S3 could not delete ${String(failed.length)} file(s): ${failed[0]?.Code ?? "unknown"}`,
          );
        }
      }
    },

    async *list(prefix): AsyncGenerator<StoredObject> {
      // Paged by marker (the last key seen), which every S3-compatible server implements alike;
      // continuation tokens are each server's own.
      const { ListObjectsCommand } = loadS3();
      let marker: string | undefined;
      do {
        const page = await s3().send(
          new ListObjectsCommand({
            Bucket: options.bucket,
            Prefix: prefix,
            ...(marker ? { Marker: marker } : {}),
          }),
        );
        const contents = page.Contents ?? [];
        for (const object of contents) {
          if (object.Key) yield { key: object.Key, modifiedAt: object.LastModified ?? new Date(0) };
        }
        marker = page.IsTruncated ? contents.at(-1)?.Key : undefined;
      } while (marker);
    },

    async open(key) {
      checkKey(key);
      const { GetObjectCommand } = loadS3();
      try {
        const answer = await s3().send(new GetObjectCommand({ Bucket: options.bucket, Key: key }));
        if (!answer.Body) return undefined;
        return {
          body: answer.Body as Readable,
          contentType: answer.ContentType,
          contentLength: answer.ContentLength,
          etag: answer.ETag,
        };
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },

    url: (key) => `${options.publicBaseUrl}/${key}`,

    close() {
      client?.destroy();
    },
  };
}
