import { spawn } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import type { Kysely } from "kysely";
import { ROOT } from "../../bench/server.js";
import { CARRIED_TABLES, TABLE_KEYS } from "../../core/porting/tables.js";
import type { Database } from "../../db/schema.js";

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `npm run export` or `npm run import` as the operator would (a process of its own, from the
 * sources), with a site's variables and nothing else from this process's environment.
 */
export function runCli(
  command: "export" | "import" | "account",
  args: string[],
  site: {
    dataDir: string;
    databaseUrl?: string | undefined;
    publicUrl?: string;
    /** More variables (S3_*). */
    env?: Record<string, string>;
  },
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", path.join(ROOT, "server", "cli", `${command}.ts`), ...args],
      {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH ?? "",
          DATA_DIR: site.dataDir,
          // The server's own, as an operator runs the command with the server's variables.
          PUBLIC_URL: site.publicUrl ?? "http://127.0.0.1:3000",
          ...(site.databaseUrl ? { DATABASE_URL: site.databaseUrl } : {}),
          ...site.env,
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.on("error", reject);
    child.on("close", (code) => {
      resolve({ code, stdout, stderr });
    });
  });
}

/** Every row of every carried table, in key order: what an import must reproduce exactly. */
export async function allRows(db: Kysely<Database>) {
  const loose = db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  const tables: Record<string, Record<string, unknown>[]> = {};
  for (const table of CARRIED_TABLES) {
    // Sorted here, not by the database: each engine collates text its own way.
    const sortKey = (row: Record<string, unknown>) =>
      JSON.stringify(TABLE_KEYS[table].map((key) => row[key]));
    const rows = await loose.selectFrom(table).selectAll().execute();
    tables[table] = rows.sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : 1));
  }
  return tables;
}

/** Every file under a folder, by its path relative to it, with its bytes. */
export async function allFiles(root: string) {
  const files: Record<string, Buffer> = {};
  const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(
    (error: unknown) => {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    },
  );
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    files[path.relative(root, file).split(path.sep).join("/")] = await readFile(file);
  }
  return files;
}
