import { existsSync } from "node:fs";
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

/**
 * Whether the web site is built (build/server): pages are served, and so are counted views. The
 * suite's other Node releases run the API tests on a copy without it; tests of pages skip there.
 */
export const SITE_BUILT = existsSync(
  path.join(import.meta.dirname, "..", "..", "build", "server", "index.js"),
);

export interface TestServer {
  url: string;
  app: App;
  config: Config;
  dataDir: string;
  /** Every log line the server wrote, as raw JSON text. */
  logs: string[];
  close(): Promise<void>;
}

/** Below Linux's ephemeral range (32768 and up), where the OS never picks a port by itself. */
const FIXED_PORTS = { from: 20_000, to: 32_000 };

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once("error", () => {
      resolve(false);
    });
    probe.listen(port, "127.0.0.1", () => {
      probe.close(() => {
        resolve(true);
      });
    });
  });
}

/**
 * A port for a server a test starts as a process of its own, and may stop and start again on it.
 * It is free now and, being outside the ephemeral range, is not handed out meanwhile to another
 * test's `listen(0)` or to the local end of some connection (which happened with a port the OS
 * had picked: the restarted server found it taken).
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = FIXED_PORTS.from + Math.floor(Math.random() * (FIXED_PORTS.to - FIXED_PORTS.from));
    if (await portIsFree(port)) return port;
  }
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
  /**
   * The host name the site is reached by: `localhost` where a browser must see a domain (WebAuthn
   * takes no IP address as its relying party). The server listens on 127.0.0.1 either way.
   */
  host: "127.0.0.1" | "localhost" = "127.0.0.1",
): Promise<TestServer> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "blog-test-"));
  // A caller that names its own DATABASE_URL (several servers on one database) manages it.
  const postgres =
    process.env.DATABASE_URL && !env.DATABASE_URL
      ? await freshPostgres(process.env.DATABASE_URL)
      : undefined;
  const port = await freePort();
  const config = loadConfig({
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: "127.0.0.1",
    RATE_LIMITS: "off",
    NEW_ACCOUNT_LIMITS: "off",
    ADMIN_EMAIL,
    ADMIN_PASSWORD,
    // The address the browser tests open, so same-origin checks and absolute links agree.
    PUBLIC_URL: `http://${host}:${String(port)}`,
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
  // Every member page served from a shell is checked against its whole render (decision 021).
  const app = await buildApp(config, { logStream, verifyMemberPages: true, ...options });
  await app.server.listen({ port, host: "127.0.0.1" });
  return {
    url: `http://${host}:${String(port)}`,
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
