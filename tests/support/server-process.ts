import path from "node:path";
import { ROOT, startFlags, startServer } from "../../bench/server.js";

/** The admin the server process ensures at start-up. */
export const PROCESS_ADMIN = { email: "process-admin@example.com", password: "Process-Admin1!" };

/**
 * The server as a process of its own, from the sources, with the heap settings `npm start` uses:
 * for tests that kill it, stop it or measure its memory. Waits for its first answer.
 */
export function startServerProcess(options: {
  port: string;
  dataDir: string;
  databaseUrl: string | undefined;
  /** More variables, or others than these defaults. */
  env?: Record<string, string>;
}) {
  const base = `http://127.0.0.1:${options.port}`;
  return startServer(
    base,
    {
      PATH: process.env.PATH ?? "",
      NODE_ENV: "production",
      DATA_DIR: options.dataDir,
      PORT: options.port,
      HOST: "127.0.0.1",
      PUBLIC_URL: base,
      RATE_LIMITS: "off",
      NEW_ACCOUNT_LIMITS: "off",
      LOG_LEVEL: "warn",
      ADMIN_EMAIL: PROCESS_ADMIN.email,
      ADMIN_PASSWORD: PROCESS_ADMIN.password,
      ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}),
      ...options.env,
    },
    [...startFlags(), "--import", "tsx", path.join(ROOT, "server", "main.ts")],
  );
}
