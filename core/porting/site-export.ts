import { createHash } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdtemp, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { once } from "node:events";
import type { Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { sql, type Kysely } from "kysely";
import * as tar from "tar-stream";
import type { Engine } from "../../db/connect.js";
import type { Database } from "../../db/schema.js";
import { IMAGE_VARIANTS } from "../media/images.js";
import {
  ARCHIVE_FORMAT,
  ARCHIVE_VERSION,
  fileEntry,
  IMAGE_FILE,
  isCellValue,
  MANIFEST_ENTRY,
  tableEntry,
  type Manifest,
} from "./archive.js";
import { columnsOf, latestMigration, readRows } from "./database.js";
import type { Progress } from "./progress.js";
import type { SiteFiles } from "./site-files.js";
import { CARRIED_TABLES } from "./tables.js";

export interface ExportReport {
  tables: { name: string; rows: number }[];
  files: number;
  bytes: number;
  /** Image files the rows name that the storage does not have (the archive cannot have them). */
  missingFiles: string[];
}

interface DumpedTable {
  name: string;
  columns: string[];
  rows: number;
  bytes: number;
  sha256: string;
  file: string;
}

/**
 * Writes every carried row (from one consistent snapshot) and every stored image file into a tar
 * archive on `out`, the manifest last (decision 019).
 */
export async function exportSite(
  db: Kysely<Database>,
  engine: Engine,
  files: SiteFiles,
  out: Writable,
  progress?: Progress,
): Promise<ExportReport> {
  const scratch = await mkdtemp(path.join(os.tmpdir(), "blog-export-"));
  try {
    const { tables, migration } = await dumpTables(db, engine, scratch, progress);
    const pack = tar.pack();
    const written = pipeline(pack, out);
    // Awaited at the end; a failure before then is the one reported, and this one is not lost.
    written.catch(() => undefined);
    const manifest: Manifest = {
      format: ARCHIVE_FORMAT,
      version: ARCHIVE_VERSION,
      migration,
      exportedAt: new Date().toISOString(),
      sourceEngine: engine,
      tables: tables.map(({ name, columns, rows, bytes, sha256 }) => ({
        name,
        columns,
        rows,
        bytes,
        sha256,
      })),
      files: [],
    };
    let bytes = 0;
    try {
      for (const table of tables) {
        const entry = pack.entry({
          name: tableEntry(table.name),
          size: table.bytes,
          mtime: new Date(0),
        });
        await pipeline(createReadStream(table.file), entry);
      }

      const keys: string[] = [];
      for await (const object of files.storage.list("images/")) {
        // A write that never finished, an empty folder: not images.
        if (!IMAGE_FILE.test(object.key)) continue;
        keys.push(object.key);
      }
      keys.sort();
      progress?.start("images", keys.length);
      for (const key of keys) {
        const body = await files.read(key);
        progress?.tick();
        if (!body) continue; // removed since it was listed: nothing refers to it any more
        await addEntry(pack, fileEntry(key), body);
        manifest.files.push({ key, bytes: body.length, sha256: hash(body) });
        bytes += body.length;
      }
      progress?.done();
      await addEntry(pack, MANIFEST_ENTRY, Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`));
      pack.finalize();
      await written;
    } catch (error) {
      pack.destroy(error as Error);
      throw error;
    }

    const stored = new Set(manifest.files.map((file) => file.key));
    const missingFiles = (await namedImageFiles(db)).filter((key) => !stored.has(key));
    return {
      tables: tables.map(({ name, rows }) => ({ name, rows })),
      files: manifest.files.length,
      bytes,
      missingFiles,
    };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

const hash = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

function addEntry(pack: tar.Pack, name: string, body: Buffer) {
  return new Promise<void>((resolve, reject) => {
    pack.entry({ name, size: body.length, mtime: new Date(0) }, body, (error) => {
      if (error) reject(error);
      else resolve();
    });
  });
}

/** Every table into its own JSON-lines file, all read in one transaction (one snapshot). */
async function dumpTables(
  db: Kysely<Database>,
  engine: Engine,
  scratch: string,
  progress?: Progress,
) {
  const snapshot =
    engine === "postgres"
      ? db.transaction().setIsolationLevel("repeatable read")
      : db.transaction();
  return snapshot.execute(async (trx) => {
    // SQLite starts its snapshot at the first read, PostgreSQL at the first statement.
    await sql`select 1`.execute(trx);
    const migration = await latestMigration(trx);
    if (migration === undefined)
      throw new Error("The database has not been set up: nothing to export");
    const tables: DumpedTable[] = [];
    for (const name of CARRIED_TABLES) {
      const columns = await columnsOf(trx, name);
      const file = path.join(scratch, `${name}.jsonl`);
      const output = createWriteStream(file);
      const digest = createHash("sha256");
      let rows = 0;
      progress?.start(name);
      for await (const batch of readRows(trx, name, columns)) {
        let text = "";
        for (const row of batch) {
          const line: Record<string, unknown> = {};
          for (const column of columns) {
            const value = row[column];
            if (!isCellValue(value)) {
              throw new Error(
                `${name}.${column} holds a value an archive cannot carry (${typeof value})`,
              );
            }
            line[column] = value;
          }
          text += `${JSON.stringify(line)}\n`;
        }
        rows += batch.length;
        digest.update(text);
        if (!output.write(text)) await once(output, "drain");
        progress?.tick(batch.length);
      }
      output.end();
      await once(output, "finish");
      progress?.done();
      tables.push({
        name,
        columns,
        rows,
        bytes: (await stat(file)).size,
        sha256: digest.digest("hex"),
        file,
      });
    }
    return { tables, migration };
  });
}

/** The image files the rows name (each image is stored at every variant width). */
async function namedImageFiles(db: Kysely<Database>) {
  const [posts, users, bodyImages, logos] = await Promise.all([
    db.selectFrom("posts").select("image_key as key").execute(),
    db.selectFrom("users").select("photo_key as key").where("photo_key", "is not", null).execute(),
    db.selectFrom("body_images").select("image_key as key").execute(),
    db
      .selectFrom("site_settings")
      .select("logo_key as key")
      .where("logo_key", "is not", null)
      .execute(),
  ]);
  const keys = new Set<string>();
  for (const { key } of [...posts, ...users, ...bodyImages, ...logos]) {
    if (!key) continue;
    for (const { name } of IMAGE_VARIANTS) keys.add(`${key}/${name}.webp`);
  }
  return [...keys].sort();
}
