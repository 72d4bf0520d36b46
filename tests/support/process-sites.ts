import type { ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Kysely } from "kysely";
import { afterAll, afterEach } from "vitest";
import { migrateToLatest, openDatabase } from "../../db/connect.js";
import type { Database, OutboxChannel } from "../../db/schema.js";
import { startServerProcess } from "./server-process.js";
import { freshPostgres } from "./test-server.js";

/** A site on disk (and in its own PostgreSQL database when DATABASE_URL is set), not yet served. */
export interface ProcessSite {
  dataDir: string;
  databaseUrl: string | undefined;
}

/**
 * The set-up of the tests that run the server as processes and kill them (the outbox's
 * reliability tests): fresh sites, servers started on them, and their tables read from outside.
 * Every process still running is killed after each test; sites and `cleanup`s go after the file.
 */
export function processSites(name: string) {
  const databaseUrl = process.env.DATABASE_URL;
  const children: ChildProcess[] = [];
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) child.kill("SIGKILL");
  });
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  /** The site's database, opened for `work` and closed after it. */
  async function withDatabase<T>(site: ProcessSite, work: (db: Kysely<Database>) => Promise<T>) {
    const handle = openDatabase({ databaseUrl: site.databaseUrl, dataDir: site.dataDir });
    try {
      return await work(handle.db);
    } finally {
      await handle.close();
    }
  }

  return {
    /** Something to close after the file's tests (a relay, a receiver). */
    cleanup(work: () => Promise<unknown>) {
      cleanups.push(work);
    },

    /** A fresh site; `prepare` writes into its migrated database before any server runs. */
    async freshSite(prepare?: (db: Kysely<Database>, dataDir: string) => Promise<unknown>) {
      const dataDir = await mkdtemp(path.join(os.tmpdir(), `blog-${name}-`));
      cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
      const database = databaseUrl ? await freshPostgres(databaseUrl) : undefined;
      if (database) cleanups.push(() => database.drop());
      const site: ProcessSite = { dataDir, databaseUrl: database?.url };
      if (prepare) {
        await withDatabase(site, async (db) => {
          await migrateToLatest(db);
          await prepare(db, dataDir);
        });
      }
      return site;
    },

    /** The server on `site`, as a process of its own; `exited` settles when it is gone. */
    async start(site: ProcessSite, port: number, env: Record<string, string>) {
      const { child } = await startServerProcess({
        port: String(port),
        dataDir: site.dataDir,
        databaseUrl: site.databaseUrl,
        env,
      });
      children.push(child);
      const exited = new Promise<unknown>((resolve) => child.once("exit", resolve));
      return { child, exited };
    },

    /** The site's outbox rows of one channel (and topic), read while its servers run. */
    outboxRows(site: ProcessSite, channel: OutboxChannel, topic?: string) {
      return withDatabase(site, (db) => {
        let rows = db.selectFrom("outbox").selectAll().where("channel", "=", channel);
        if (topic !== undefined) rows = rows.where("topic", "=", topic);
        return rows.execute();
      });
    },

    /** Makes every pending outbox row due now: a restart as it would come once leases ran out. */
    leasesRunOut(site: ProcessSite) {
      return withDatabase(site, (db) =>
        db
          .updateTable("outbox")
          .set({ next_attempt_at: new Date().toISOString() })
          .where("status", "=", "pending")
          .execute(),
      );
    },

    withDatabase,
  };
}
