import { readFile } from "node:fs/promises";
import path from "node:path";
import type { S3Storage } from "../media/s3-storage.js";
import { checkKey, createLocalStorage, type Storage } from "../media/storage.js";

/** The image storage with what an export needs beside writing: reading a file back. */
export interface SiteFiles {
  storage: Storage;
  /** The file's bytes, or undefined when there is none. */
  read(key: string): Promise<Buffer | undefined>;
  close(): void;
}

export function localSiteFiles(root: string, publicBaseUrl: string): SiteFiles {
  return {
    storage: createLocalStorage(root, publicBaseUrl),
    async read(key) {
      checkKey(key);
      return readFile(path.join(root, key)).catch((error: unknown) => {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
        throw error;
      });
    },
    close: () => undefined,
  };
}

export function s3SiteFiles(storage: S3Storage): SiteFiles {
  return {
    storage,
    async read(key) {
      const opened = await storage.open(key);
      if (!opened) return undefined;
      const chunks: Buffer[] = [];
      for await (const chunk of opened.body) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    },
    close: () => {
      storage.close();
    },
  };
}
