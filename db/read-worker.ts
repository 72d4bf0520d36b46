import { Worker } from "node:worker_threads";
import { sqliteModulePath } from "./sqlite-driver.js";
import { inBackground, type QueryWatcher } from "./background.js";

/**
 * The worker's code, a plain script (eval'd, so the same text runs from the TypeScript sources
 * in tests and from the build): one read-only connection to the database file (with the main
 * connection's search_rank extension, if it has one), statements kept
 * by their SQL (a hundred at most), one query at a time in the order asked.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.file, { readonly: true, fileMustExist: true });
db.pragma("busy_timeout = 5000");
// The main connection's search_rank: a worker that cannot load it fails, and searches stay there.
if (workerData.extension) db.loadExtension(workerData.extension);
const statements = new Map();
parentPort.on("message", (message) => {
  if (message.close) {
    statements.clear();
    db.close();
    parentPort.close();
    return;
  }
  try {
    let statement = statements.get(message.sql);
    if (!statement) {
      if (statements.size >= 100) statements.clear();
      statement = db.prepare(message.sql);
      statements.set(message.sql, statement);
    }
    parentPort.postMessage({ id: message.id, rows: statement.all(...message.parameters) });
  } catch (error) {
    parentPort.postMessage({ id: message.id, error: error instanceof Error ? error.message : String(error) });
  }
});
`;

type Row = Record<string, unknown>;

/** The worker is not running (it failed to start, died, or was closed): read on the main thread. */
export class ReadWorkerGone extends Error {
  constructor(cause?: unknown) {
    super("The read worker is not running", { cause });
    this.name = "ReadWorkerGone";
  }
}

type Answer = { id: number; rows: Row[] } | { id: number; error: string };

/** A read-only connection to a SQLite file on a thread of its own. */
export interface ReadWorker {
  /** The rows of a read; the same SQL and parameters as a compiled Kysely query. */
  all<T>(sql: string, parameters: readonly unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

/**
 * Reads that cost the one JavaScript thread a millisecond or more of SQLite itself (a full-text
 * search), run on a second core while the first serves other requests. In WAL mode a read here
 * sees every write committed before it starts, as a read on the main connection does.
 */
export function openReadWorker(file: string, extension?: string): ReadWorker {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { file, driver: sqliteModulePath(), extension },
  });
  // An idle worker does not keep the process alive; a pending read does (its promise waits).
  worker.unref();
  const pending = new Map<number, { resolve: (rows: Row[]) => void; reject: (e: Error) => void }>();
  let nextId = 0;
  let failed: Error | undefined;
  const failAll = (error: Error) => {
    failed = error;
    for (const waiting of pending.values()) waiting.reject(error);
    pending.clear();
  };
  worker.on("message", (answer: Answer) => {
    const waiting = pending.get(answer.id);
    if (!waiting) return;
    pending.delete(answer.id);
    if ("error" in answer) waiting.reject(new Error(answer.error));
    else waiting.resolve(answer.rows);
  });
  worker.on("error", (error) => {
    failAll(new ReadWorkerGone(error));
  });
  worker.on("exit", () => {
    failAll(failed ?? new ReadWorkerGone());
  });

  return {
    all<T>(sql: string, parameters: readonly unknown[]) {
      if (failed) return Promise.reject(failed);
      const id = (nextId += 1);
      return new Promise<T[]>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (rows: Row[]) => void, reject });
        if (pending.size === 1) worker.ref();
        worker.postMessage({ id, sql, parameters });
      }).finally(() => {
        if (pending.size === 0) worker.unref();
      });
    },
    async close() {
      if (failed) return;
      const exited = new Promise((resolve) => worker.once("exit", resolve));
      worker.postMessage({ close: true });
      await exited;
    },
  };
}

/**
 * A read worker started at its first read, so a server that is never searched runs none.
 * `onQuery` is told each read's SQL, as the main connection tells its own (tests count them);
 * `extension` is loaded into it as into the main connection (db/search-rank.ts).
 */
export function lazyReadWorker(
  file: string,
  onQuery?: QueryWatcher,
  extension?: string,
): ReadWorker {
  let started: ReadWorker | undefined;
  return {
    all<T>(sql: string, parameters: readonly unknown[]) {
      started ??= openReadWorker(file, extension);
      onQuery?.(sql, inBackground());
      return started.all<T>(sql, parameters);
    },
    async close() {
      await started?.close();
    },
  };
}
