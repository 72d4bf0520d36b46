import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";

// The embedded database's native driver must survive this Node: many short-lived statements,
// forced and natural garbage collection, a worker thread that opens and closes the database, and
// process exit (tests/reliability/sqlite-stress.ts). A wrong pairing aborts the process from
// native code, so it is run in a child process of its own and judged by how that child ends.

let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), "blog-sqlite-stress-"));
});

afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

function runStress() {
  const script = path.join(import.meta.dirname, "sqlite-stress.ts");
  const child = spawn(process.execPath, ["--expose-gc", "--import", "tsx", script, dataDir], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }>(
    (resolve, reject) => {
      child.once("error", reject);
      child.once("close", (code, signal) => {
        resolve({ code, signal, output: `${stdout}${stderr}` });
      });
    },
  );
}

it(`keeps the process alive and ends it cleanly on Node ${process.version}`, async () => {
  const { code, signal, output } = await runStress();
  // The whole output in the message: an abort prints the failed assertion and the native stack.
  expect({ code, signal }, output).toEqual({ code: 0, signal: null });
  expect(output).toContain("stress done");
}, 60_000);
