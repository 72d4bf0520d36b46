import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { open } from "node:fs/promises";
import type { Readable } from "node:stream";
import { finished } from "node:stream/promises";
import type { Kysely } from "kysely";
import * as tar from "tar-stream";
import type { Database } from "../../db/schema.js";
import {
  fileEntry,
  IMAGE_FILE,
  isCellValue,
  MANIFEST_ENTRY,
  ManifestSchema,
  tableEntry,
  type CellValue,
  type Manifest,
} from "./archive.js";
import { hasRows, insertRows, latestMigration, ROW_BATCH, tablesOf } from "./database.js";
import type { Progress } from "./progress.js";
import type { SiteFiles } from "./site-files.js";
import { CARRIED_TABLES } from "./tables.js";

/** The archive or the target is not fit for an import; nothing was written. */
export class ImportRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ImportRefused";
  }
}

export interface ImportReport {
  tables: { name: string; rows: number }[];
  files: number;
}

/** Largest manifest accepted: about 150 bytes an image file, so a few hundred thousand files. */
const MANIFEST_MAX_BYTES = 64 * 1024 * 1024;

const refuse = (message: string) => new ImportRefused(message);
const damaged = (detail: string) =>
  refuse(`The archive is damaged or not a site export (${detail}). Nothing was imported.`);

/**
 * Restores a site archive into an empty, migrated database and its image storage (decision 019):
 * the whole archive is read and checked first; then the image files are written; then every row in
 * one transaction. If the rows fail, the files written are removed again.
 */
export async function importSite(
  db: Kysely<Database>,
  files: SiteFiles,
  archivePath: string,
  progress?: Progress,
): Promise<ImportReport> {
  await refuseNonEmpty(db);
  const manifest = await validateArchive(db, archivePath);

  const written: string[] = [];
  try {
    progress?.start("images", manifest.files.length);
    const expected = new Map(manifest.files.map((file) => [fileEntry(file.key), file]));
    await readArchive(archivePath, async (name, stream) => {
      const file = expected.get(name);
      if (!file) return drain(stream);
      const body = await readAll(stream, file.bytes);
      if (sha256(body) !== file.sha256) throw damaged(`${name} changed while it was read`);
      await files.storage.put(file.key, body, "image/webp");
      written.push(file.key);
      progress?.tick();
    });
    progress?.done();

    await db.transaction().execute(async (trx) => {
      const tables = new Map(manifest.tables.map((table) => [tableEntry(table.name), table]));
      await readArchive(archivePath, async (name, stream) => {
        const table = tables.get(name);
        if (!table) return drain(stream);
        progress?.start(table.name, table.rows);
        const digest = createHash("sha256");
        let batch: Record<string, CellValue>[] = [];
        for await (const line of lines(stream, digest)) {
          batch.push(parseRow(line, table.name));
          if (batch.length === ROW_BATCH) {
            await insertRows(trx, table.name, batch);
            progress?.tick(batch.length);
            batch = [];
          }
        }
        await insertRows(trx, table.name, batch);
        progress?.tick(batch.length);
        progress?.done();
        if (digest.digest("hex") !== table.sha256)
          throw damaged(`${name} changed while it was read`);
      });
    });
  } catch (error) {
    await files.storage.delete(written).catch(() => undefined);
    throw error;
  }
  return {
    tables: manifest.tables.map(({ name, rows }) => ({ name, rows })),
    files: manifest.files.length,
  };
}

async function refuseNonEmpty(db: Kysely<Database>) {
  const filled: string[] = [];
  for (const table of CARRIED_TABLES) if (await hasRows(db, table)) filled.push(table);
  if (filled.length > 0) {
    throw refuse(
      `The target site is not empty (${filled.join(", ")} ha${filled.length === 1 ? "s" : "ve"} rows), so nothing was imported. ` +
        "An archive is restored into a new site: point DATA_DIR (or DATABASE_URL) at an empty place " +
        "and run the import there before the server first starts (start-up creates the admin account).",
    );
  }
}

/**
 * Reads the whole archive once, writing nothing: every entry known, in its place, of the size and
 * SHA-256 the manifest gives, every row a JSON object of the target's columns.
 */
async function validateArchive(db: Kysely<Database>, archivePath: string): Promise<Manifest> {
  await refuseCompressed(archivePath);
  const seen: string[] = [];
  const found = new Map<
    string,
    { bytes: number; sha256: string; rows: number; columns?: string }
  >();
  let manifestText: string | undefined;
  await readArchive(archivePath, async (name, stream) => {
    if (manifestText !== undefined) throw damaged(`${name} follows the manifest`);
    if (seen.includes(name)) throw damaged(`${name} appears twice`);
    seen.push(name);
    if (name === MANIFEST_ENTRY) {
      manifestText = (await readAll(stream, MANIFEST_MAX_BYTES)).toString("utf8");
      return;
    }
    const table = /^tables\/([a-z_]+)\.jsonl$/.exec(name)?.[1];
    if (table !== undefined) {
      if (!(CARRIED_TABLES as readonly string[]).includes(table))
        throw damaged(`${name} is not a table an archive carries`);
      const digest = createHash("sha256");
      let rows = 0;
      let bytes = 0;
      let columns: string | undefined;
      for await (const line of lines(stream, digest)) {
        bytes += Buffer.byteLength(line) + 1;
        const shape = Object.keys(parseRow(line, table)).sort().join(",");
        if (columns !== undefined && shape !== columns)
          throw damaged(
            `row ${String(rows + 1)} of ${table} has other columns than the rows before`,
          );
        columns = shape;
        rows += 1;
      }
      found.set(name, {
        bytes,
        rows,
        sha256: digest.digest("hex"),
        ...(columns ? { columns } : {}),
      });
      return;
    }
    const key = name.startsWith("files/") ? name.slice("files/".length) : undefined;
    if (key === undefined || !IMAGE_FILE.test(key)) throw damaged(`unexpected entry ${name}`);
    const digest = createHash("sha256");
    let bytes = 0;
    let head = Buffer.alloc(0);
    for await (const chunk of stream) {
      const data = chunk as Buffer;
      digest.update(data);
      bytes += data.length;
      if (head.length < 12) head = Buffer.concat([head, data.subarray(0, 12)]);
    }
    if (!isWebp(head)) throw damaged(`${name} is not a WebP image`);
    found.set(name, { bytes, rows: 0, sha256: digest.digest("hex") });
  });

  if (manifestText === undefined) throw damaged("it ends before its manifest: truncated?");
  let manifest: Manifest;
  try {
    const parsed = ManifestSchema.safeParse(JSON.parse(manifestText));
    if (!parsed.success) throw damaged(`its manifest is not one this version reads`);
    manifest = parsed.data;
  } catch (error) {
    if (error instanceof ImportRefused) throw error;
    throw damaged("its manifest is not JSON");
  }

  const target = await latestMigration(db);
  if (manifest.migration !== target) {
    throw refuse(
      `The archive was exported at database version ${manifest.migration}, and this site is at ${target ?? "none"}. ` +
        "Import it with the release that exported it, then upgrade that site. Nothing was imported.",
    );
  }

  // Every carried table, in foreign-key order, each entry as the manifest describes it.
  const names = manifest.tables.map((table) => table.name);
  if (names.join(",") !== CARRIED_TABLES.join(","))
    throw damaged(`it carries the tables ${names.join(", ")}, not ${CARRIED_TABLES.join(", ")}`);
  const expectedOrder = [
    ...manifest.tables.map((table) => tableEntry(table.name)),
    ...manifest.files.map((file) => fileEntry(file.key)),
    MANIFEST_ENTRY,
  ];
  if (seen.join("\n") !== expectedOrder.join("\n"))
    throw damaged("its entries are not the ones its manifest lists, in that order");
  const targetTables = new Map((await tablesOf(db)).map((table) => [table.name, table.columns]));
  for (const table of manifest.tables) {
    const entry = found.get(tableEntry(table.name));
    if (
      !entry ||
      entry.bytes !== table.bytes ||
      entry.sha256 !== table.sha256 ||
      entry.rows !== table.rows
    )
      throw damaged(`${tableEntry(table.name)} is not what its manifest says`);
    const columns = [...table.columns].sort().join(",");
    if (entry.columns !== undefined && entry.columns !== columns)
      throw damaged(`the rows of ${table.name} do not have the columns its manifest lists`);
    const theirs = [...(targetTables.get(table.name) ?? [])].sort().join(",");
    if (theirs !== columns)
      throw refuse(
        `The table ${table.name} has other columns here than in the archive. Nothing was imported.`,
      );
  }
  for (const file of manifest.files) {
    const entry = found.get(fileEntry(file.key));
    if (!entry || entry.bytes !== file.bytes || entry.sha256 !== file.sha256)
      throw damaged(`${fileEntry(file.key)} is not what its manifest says`);
  }
  return manifest;
}

async function refuseCompressed(archivePath: string) {
  const handle = await open(archivePath, "r").catch((error: unknown) => {
    const code = (error as NodeJS.ErrnoException).code;
    throw refuse(
      code === "ENOENT"
        ? `There is no file ${archivePath}.`
        : `${archivePath} cannot be read (${code ?? "error"}).`,
    );
  });
  try {
    const head = Buffer.alloc(2);
    await handle.read(head, 0, 2, 0);
    if (head[0] === 0x1f && head[1] === 0x8b)
      throw refuse(`${archivePath} is compressed (gzip): decompress it first (gunzip).`);
  } finally {
    await handle.close();
  }
}

/** Calls `onEntry` for every entry in order; a broken tar stream is a damaged archive. */
async function readArchive(
  archivePath: string,
  onEntry: (name: string, stream: Readable) => Promise<void>,
) {
  const extract = tar.extract();
  const input = createReadStream(archivePath);
  input.on("error", (error) => {
    extract.destroy(error);
  });
  input.pipe(extract);
  // The tar stream failing (a cut or garbled file) makes the archive damaged, even when the entry
  // being read is where it shows; what `onEntry` throws of its own (a refused row, a storage
  // failure) goes on as it is.
  let broken: Error | undefined;
  extract.on("error", (error: Error) => {
    broken = error;
  });
  try {
    for await (const entry of extract) {
      if (entry.header.type !== "file") throw damaged(`${entry.header.name} is not a file`);
      await onEntry(entry.header.name, entry as unknown as Readable);
    }
  } catch (error) {
    input.destroy();
    if (error instanceof ImportRefused) throw error;
    if (broken) throw damaged(broken.message);
    throw error;
  }
}

async function drain(stream: Readable) {
  stream.resume();
  await finished(stream);
}

async function readAll(stream: Readable, limit: number) {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const data = chunk as Buffer;
    size += data.length;
    if (size > limit) throw damaged("an entry is larger than its manifest says");
    chunks.push(data);
  }
  return Buffer.concat(chunks);
}

/** The lines of a JSON-lines entry (each ends with a newline), fed to `digest` as they come. */
async function* lines(stream: Readable, digest: ReturnType<typeof createHash>) {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let rest = "";
  for await (const chunk of stream) {
    const data = chunk as Buffer;
    digest.update(data);
    let text: string;
    try {
      text = rest + decoder.decode(data, { stream: true });
    } catch {
      throw damaged("a table is not UTF-8 text");
    }
    const parts = text.split("\n");
    rest = parts.pop() ?? "";
    yield* parts;
  }
  if (rest + decoder.decode() !== "") throw damaged("a table's last line is cut short");
}

function parseRow(line: string, table: string): Record<string, CellValue> {
  let row: unknown;
  try {
    row = JSON.parse(line);
  } catch {
    throw damaged(`a row of ${table} is not JSON`);
  }
  if (typeof row !== "object" || row === null || Array.isArray(row))
    throw damaged(`a row of ${table} is not an object`);
  const cells: Record<string, CellValue> = {};
  for (const [column, value] of Object.entries(row)) {
    if (!isCellValue(value)) throw damaged(`${table}.${column} holds a value no column takes`);
    cells[column] = value;
  }
  return cells;
}

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

const isWebp = (head: Buffer) =>
  head.subarray(0, 4).toString("latin1") === "RIFF" &&
  head.subarray(8, 12).toString("latin1") === "WEBP";
