import { mkdir, readdir, rename, rm, rmdir, stat, writeFile } from "node:fs/promises";
import path from "node:path";

/** One stored file, as a listing sees it. */
export interface StoredObject {
  key: string;
  /** When it was last written: a sweep leaves young files alone (an upload may be mid-way). */
  modifiedAt: Date;
}

/** Where image files live: a folder now, an S3 bucket when one machine is not enough. */
export interface Storage {
  put(key: string, body: Buffer, contentType: string): Promise<void>;
  delete(keys: readonly string[]): Promise<void>;
  /** Every stored file whose key starts with `prefix` (for start-up sweeps, not for requests). */
  list(prefix: string): AsyncIterable<StoredObject>;
  url(key: string): string;
}

const SAFE_KEY = /^[a-z0-9][a-z0-9/_.-]*$/;

/** Whether a key is one this code could have made: no "..", no leading slash, no odd characters. */
export const isSafeKey = (key: string) => SAFE_KEY.test(key) && !key.includes("..");

export function checkKey(key: string) {
  if (!isSafeKey(key)) throw new Error(`Unsafe storage key: ${key}`);
}

export function createLocalStorage(root: string, publicBaseUrl: string): Storage {
  async function* walk(folder: string): AsyncGenerator<StoredObject> {
    const entries = await readdir(folder, { withFileTypes: true }).catch((error: unknown) => {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    });
    for (const entry of entries) {
      const file = path.join(folder, entry.name);
      if (entry.isDirectory()) {
        let inside = 0;
        for await (const object of walk(file)) {
          inside += 1;
          yield object;
        }
        // An empty folder is what a crash between making it and writing its first file leaves:
        // listed as a folder marker ("…/", as S3 lists them) so a sweep can remove it too.
        if (inside === 0) {
          const info = await stat(file).catch(() => undefined);
          if (info)
            yield {
              key: `${path.relative(root, file).split(path.sep).join("/")}/`,
              modifiedAt: info.mtime,
            };
        }
      } else if (entry.isFile()) {
        const key = path.relative(root, file).split(path.sep).join("/");
        // A .tmp file is a write that never finished: listed, so a sweep can remove it.
        const info = await stat(file).catch(() => undefined);
        if (info) yield { key, modifiedAt: info.mtime };
      }
    }
  }

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
        if (key.endsWith("/")) {
          folders.add(file.replace(/[/\\]+$/, ""));
          continue;
        }
        await rm(file, { force: true });
        folders.add(path.dirname(file));
      }
      for (const folder of folders) {
        if (folder !== root) await rmdir(folder).catch(() => undefined); // only when empty
      }
    },
    async *list(prefix) {
      // Keys are folder paths, so the walk starts at the deepest folder the prefix names.
      const folder = prefix.includes("/") ? prefix.slice(0, prefix.lastIndexOf("/")) : "";
      if (folder !== "") checkKey(folder);
      for await (const object of walk(path.join(root, folder))) {
        if (object.key.startsWith(prefix)) yield object;
      }
    },
    url: (key) => `${publicBaseUrl}/${key}`,
  };
}
