import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import pg from "pg";
import { buildApp, type App, type AppOptions } from "../../server/app.js";
import { loadConfig, type Config } from "../../server/config.js";

export const ADMIN_EMAIL = "admin@example.com";
export const ADMIN_PASSWORD = "Admin-Pass1!";

export interface TestServer {
  url: string;
  app: App;
  config: Config;
  dataDir: string;
  /** Every log line the server wrote, as raw JSON text. */
  logs: string[];
  close(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => {
        if (address && typeof address === "object") resolve(address.port);
        else reject(new Error("no port"));
      });
    });
  });
}

/**
 * A fresh PostgreSQL database for one test file when DATABASE_URL is set (the suite's second run),
 * dropped on close. Without it the server uses SQLite in the file's own temporary DATA_DIR.
 */
export async function freshPostgres(baseUrl: string) {
  const name = `blog_test_${String(process.pid)}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: baseUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

export async function startTestServer(
  env: Record<string, string> = {},
  options: AppOptions = {},
): Promise<TestServer> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "blog-test-"));
  const postgres = process.env.DATABASE_URL
    ? await freshPostgres(process.env.DATABASE_URL)
    : undefined;
  const port = await freePort();
  const config = loadConfig({
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: "127.0.0.1",
    RATE_LIMITS: "off",
    ADMIN_EMAIL,
    ADMIN_PASSWORD,
    // The address the browser tests open, so same-origin checks and absolute links agree.
    PUBLIC_URL: `http://127.0.0.1:${String(port)}`,
    ...(postgres ? { DATABASE_URL: postgres.url } : {}),
    ...env,
  });
  const logs: string[] = [];
  const logStream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(...chunk.toString("utf8").split("\n").filter(Boolean));
      done();
    },
  });
  const app = await buildApp(config, { logStream, ...options });
  await app.server.listen({ port, host: "127.0.0.1" });
  return {
    url: `http://127.0.0.1:${String(port)}`,
    app,
    config,
    dataDir,
    logs,
    async close() {
      await app.server.close();
      await postgres?.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
