import { mkdir, rename, rm, rmdir, writeFile } from "node:fs/promises";
import path from "node:path";

/** Where image files live: a folder now, an S3 bucket when one machine is not enough. */
export interface Storage {
  put(key: string, body: Buffer, contentType: string): Promise<void>;
  delete(keys: readonly string[]): Promise<void>;
  url(key: string): string;
}

const SAFE_KEY = /^[a-z0-9][a-z0-9/_.-]*$/;

function checkKey(key: string) {
  if (!SAFE_KEY.test(key) || key.includes("..")) throw new Error(`Unsafe storage key: ${key}`);
}

export function createLocalStorage(root: string, publicBaseUrl: string): Storage {
  return {
    async put(key, body) {
      checkKey(key);
      const file = path.join(root, key);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(`${file}.tmp`, body);
      await rename(`${file}.tmp`, file);
    },
    async delete(keys) {
      const folders = new Set<string>();
      for (const key of keys) {
        checkKey(key);
        const file = path.join(root, key);
        await rm(file, { force: true });
        folders.add(path.dirname(file));
      }
      for (const folder of folders) {
        if (folder !== root) await rmdir(folder).catch(() => undefined); // only when empty
      }
    },
    url: (key) => `${publicBaseUrl}/${key}`,
  };
}
