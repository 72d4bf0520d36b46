import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";

export const ROOT = path.resolve(import.meta.dirname, "..");

/** A GET with its status, size on the wire, body and headers. */
export function get(url: string, headers: Record<string, string> = {}) {
  return new Promise<{
    status: number;
    bytes: number;
    body: string;
    headers: http.IncomingHttpHeaders;
  }>((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const raw = Buffer.concat(chunks);
          resolve({
            status: res.statusCode ?? 0,
            bytes: raw.length,
            body: raw.toString("latin1"),
            headers: res.headers,
          });
        });
      })
      .on("error", reject);
  });
}

/** The Node flags `npm start` runs the server with (package.json is their one home). */
export function startFlags(): string[] {
  const { scripts } = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
    scripts: { start: string };
  };
  const command = /\bnode ((?:--\S+ )*)dist\/server\/main\.js/.exec(scripts.start);
  if (!command) throw new Error("package.json's start script does not run dist/server/main.js");
  return (command[1] ?? "").split(" ").filter(Boolean);
}

/**
 * Starts dist/server/main.js as `npm start` does (or the given node arguments, e.g. the sources
 * through tsx) and waits for its first answer.
 */
export async function startServer(
  base: string,
  env: NodeJS.ProcessEnv,
  nodeArgs: string[] = [...startFlags(), path.join(ROOT, "dist/server/main.js")],
): Promise<{ child: ChildProcess; startMs: number }> {
  // Waiting for "the first answer" means nothing if another server already answers there.
  const taken = await get(`${base}/livez`).then(
    () => true,
    () => false,
  );
  if (taken) throw new Error(`something already answers on ${base}`);
  const started = performance.now();
  const child = spawn(process.execPath, nodeArgs, {
    env,
    stdio: ["ignore", "ignore", "inherit"],
  });
  for (;;) {
    if (child.exitCode !== null) throw new Error("the server exited during start-up");
    try {
      if ((await get(`${base}/livez`)).status === 200) break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
  return { child, startMs: Math.round(performance.now() - started) };
}
