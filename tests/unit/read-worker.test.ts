import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  migrateToLatest,
  openDatabase,
  sqliteFile,
  type DatabaseHandle,
} from "../../db/connect.js";
import {
  lazyReadWorker,
  openReadWorker,
  ReadWorkerGone,
  type ReadWorker,
} from "../../db/read-worker.js";

// The read-only connection on a thread of its own that full-text searches use on SQLite: a real
// database file, written on the main connection and read on the worker's.

let dataDir: string;
let database: DatabaseHandle;
let worker: ReadWorker | undefined;

beforeEach(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), "blog-read-worker-"));
  database = openDatabase({ dataDir });
  await migrateToLatest(database.db);
});

afterEach(async () => {
  await worker?.close();
  worker = undefined;
  await database.close();
  await rm(dataDir, { recursive: true, force: true });
});

const addDoc = (postId: string) =>
  sql`INSERT INTO post_search_docs (post_id) VALUES (${postId})`.execute(database.db);

const docsQuery = sql<{ post_id: string }>`SELECT post_id FROM post_search_docs ORDER BY doc`;

describe("the read worker", () => {
  it("refuses a read that fails, with SQLite's message, and goes on reading", async () => {
    worker = openReadWorker(sqliteFile(dataDir));
    const refused = worker.all("SELECT * FROM no_such_table", []);
    await expect(refused).rejects.toThrow("no such table: no_such_table");
    await expect(refused).rejects.not.toBeInstanceOf(ReadWorkerGone);
    await expect(worker.all("SELECT ? + ? AS n", [2, 3])).resolves.toEqual([{ n: 5 }]);
  });

  it("cannot write: its connection is read-only", async () => {
    worker = openReadWorker(sqliteFile(dataDir));
    await expect(
      worker.all("INSERT INTO post_search_docs (post_id) VALUES (?) RETURNING doc", ["x"]),
    ).rejects.toThrow(/readonly/i);
    const { rows } = await docsQuery.execute(database.db);
    expect(rows).toEqual([]);
  });

  it("is gone once closed, so its callers can read on the main thread instead", async () => {
    worker = openReadWorker(sqliteFile(dataDir));
    await worker.close();
    await expect(worker.all("SELECT 1 AS n", [])).rejects.toBeInstanceOf(ReadWorkerGone);
  });

  it("sees every write committed before its read, as the main connection does", async () => {
    worker = lazyReadWorker(sqliteFile(dataDir));
    const compiled = docsQuery.compile(database.db);
    await expect(worker.all(compiled.sql, compiled.parameters)).resolves.toEqual([]);
    await addDoc("first");
    await addDoc("second");
    await expect(worker.all(compiled.sql, compiled.parameters)).resolves.toEqual([
      { post_id: "first" },
      { post_id: "second" },
    ]);
  });

  it("answers reads asked at once each with its own rows", async () => {
    const reader = openReadWorker(sqliteFile(dataDir));
    worker = reader;
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, n) => reader.all("SELECT ? AS n", [n])),
    );
    expect(answers).toEqual(Array.from({ length: 20 }, (_, n) => [{ n }]));
  });
});
