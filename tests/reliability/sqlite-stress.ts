/**
 * Works the embedded database the way the server does, then exits; run by sqlite-driver.test.ts
 * in a child process of its own (with --expose-gc), under whichever Node runs the tests:
 *
 *   node --expose-gc --import tsx tests/reliability/sqlite-stress.ts <data dir>
 *
 * A native driver that is wrong for the runtime does not throw: it aborts the process from a
 * destructor run by the garbage collector, in a worker's teardown or at exit. So everything here
 * makes native objects die in those places, and the parent reads the exit signal.
 */
import { randomUUID } from "node:crypto";
import { isMainThread, Worker, workerData } from "node:worker_threads";
import { sql, type Kysely } from "kysely";
import { migrateToLatest, openDatabase } from "../../db/connect.js";
import type { Database } from "../../db/schema.js";

/** Distinct statements per round: more than the statement cache keeps, so most die young. */
const STATEMENTS_PER_ROUND = 1_500;
const ROUNDS = 6;

function collectGarbage() {
  if (!globalThis.gc) throw new Error("run with --expose-gc");
  globalThis.gc();
}

/** Reads, each with SQL of its own (a literal in the text), so each is prepared afresh. */
async function shortLivedStatements(db: Kysely<Database>, round: number) {
  for (let index = 0; index < STATEMENTS_PER_ROUND; index += 1) {
    const marker = round * STATEMENTS_PER_ROUND + index;
    await db
      .selectFrom("categories")
      .select([sql.lit(marker).as("marker"), (eb) => eb.fn.countAll().as("rows")])
      .executeTakeFirst();
  }
}

/** Writes in a transaction, then a streamed read (a statement iterator), as the server does. */
async function writesAndStream(db: Kysely<Database>) {
  await db.transaction().execute(async (trx) => {
    for (let index = 0; index < 50; index += 1) {
      const id = randomUUID();
      await trx
        .insertInto("categories")
        .values({ id, title: id, title_key: id, created_at: new Date().toISOString() })
        .execute();
    }
  });
  for await (const row of db.selectFrom("categories").select("id").stream(100)) {
    if (!row.id) throw new Error("a streamed row came back without its id");
  }
}

async function inWorker(dataDir: string) {
  const database = openDatabase({ dataDir });
  await shortLivedStatements(database.db, 1_000);
  await writesAndStream(database.db);
  await database.close();
}

/** A worker thread that opens the database, works it, closes it and ends. */
function runWorker(dataDir: string) {
  return new Promise<void>((resolve, reject) => {
    // Node 20 does not pass `--import tsx` on to workers: the worker registers it itself.
    const tsx = JSON.stringify(import.meta.resolve("tsx/esm/api"));
    const entry = `import { register } from ${tsx}; register(); await import(${JSON.stringify(import.meta.url)});`;
    const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(entry)}`), {
      workerData: { dataDir },
    });
    worker.once("error", reject);
    worker.once("exit", (code) => {
      if (code === 0) resolve();
      else reject(new Error(`the worker exited with code ${String(code)}`));
    });
  });
}

async function main(dataDir: string) {
  const { db } = openDatabase({ dataDir });
  await migrateToLatest(db);
  const worker = runWorker(dataDir);
  for (let round = 0; round < ROUNDS; round += 1) {
    await shortLivedStatements(db, round);
    await writesAndStream(db);
    collectGarbage();
  }
  await worker;
  await runWorker(dataDir);
  collectGarbage();
  // Idle long enough for V8's own idle-time and memory-reducing collections to run.
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  process.stdout.write("stress done\n");
  // Ends with the database still open and its cached statements alive, as a server stopped by a
  // signal or a test worker does: their native destructors run at exit.
}

if (isMainThread) {
  const dataDir = process.argv[2];
  if (!dataDir) throw new Error("usage: sqlite-stress.ts <data dir>");
  await main(dataDir);
} else {
  const { dataDir } = workerData as { dataDir: string };
  await inWorker(dataDir);
}
