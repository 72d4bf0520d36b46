import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Kysely } from "kysely";
import { afterAll } from "vitest";
import { ROOT } from "../../bench/server.js";
import { CARRIED_TABLES, TABLE_KEYS } from "../../core/porting/tables.js";
import type { Database } from "../../db/schema.js";
import { pngImage } from "./images.js";
import { startTestServer } from "./test-server.js";

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

/** Each command is a process of its own that loads the sources: seconds each on a busy machine. */
export const CLI_TIMEOUT = 120_000;

/**
 * The set-up the import test files share: a fresh server and a scratch folder for the files to
 * import, both gone after the file's tests. `site` is what `runCli` needs to reach the server's
 * data; `counts` is what an import writes, to show a refused one wrote nothing.
 */
export async function openImportSite(name: string) {
  const server = await startTestServer();
  const scratch = await mkdtemp(path.join(os.tmpdir(), `blog-${name}-`));
  afterAll(async () => {
    await server.close();
    await rm(scratch, { recursive: true, force: true });
  });
  const site = {
    dataDir: server.dataDir,
    databaseUrl: server.config.databaseUrl,
    publicUrl: server.config.publicUrl,
  };
  const { db } = server.app.deps;
  const count = async (table: "posts" | "users" | "categories" | "comments" | "body_images") =>
    Number(
      (await db.selectFrom(table).select(db.fn.countAll().as("n")).executeTakeFirstOrThrow()).n,
    );
  const counts = async () => ({
    posts: await count("posts"),
    users: await count("users"),
    categories: await count("categories"),
    comments: await count("comments"),
    bodyImages: await count("body_images"),
    files: Object.keys(await allFiles(path.join(server.dataDir, "uploads"))).length,
  });
  /** PNG files of the given sizes under `folder` in the scratch folder, made as an export's are. */
  const writeImages = async (folder: string, images: Record<string, [number, number]>) => {
    const root = path.join(scratch, folder);
    for (const [name, [width, height]] of Object.entries(images)) {
      await mkdir(path.dirname(path.join(root, name)), { recursive: true });
      await writeFile(path.join(root, name), await pngImage(width, height));
    }
    return root;
  };
  /** The post an import made, by its title (fails the test when there is none). */
  const imported = (title: string) =>
    db.selectFrom("posts").selectAll().where("title", "=", title).executeTakeFirstOrThrow();
  return { server, scratch, site, counts, writeImages, imported };
}
