import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { ChildProcess } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import {
  orphanUploads,
  runLoad,
  seedForLoad,
  settledTarget,
  signInMembers,
  type LoadReport,
} from "../../bench/load.js";
import { ROOT } from "../../bench/server.js";
import { startServerProcess } from "../support/server-process.js";
import { freePort, freshPostgres } from "../support/test-server.js";

// The short version of `npm run load`: the same mixed load for 20 seconds against the server as a
// process of its own (from the sources), so its memory is its own.
const SECONDS = 20;
const WEB_BUILD = existsSync(path.join(ROOT, "build", "server", "index.js"));

let child: ChildProcess | undefined;
let cleanUp: (() => Promise<void>) | undefined;

afterAll(async () => {
  child?.kill("SIGKILL");
  await cleanUp?.();
});

describe("a mixed read/write load", () => {
  it("gets no 5xx, leaves no upload without its row, and gives its memory back", async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), "blog-load-test-"));
    const postgres = process.env.DATABASE_URL
      ? await freshPostgres(process.env.DATABASE_URL)
      : undefined;
    cleanUp = async () => {
      await postgres?.drop();
      await rm(dataDir, { recursive: true, force: true });
    };
    const port = String(await freePort());
    const base = `http://127.0.0.1:${port}`;
    const { emails, category } = await seedForLoad(dataDir, base, postgres?.url);
    ({ child } = await startServerProcess({ port, dataDir, databaseUrl: postgres?.url }));
    const report: LoadReport = await runLoad({
      base,
      pid: child.pid ?? 0,
      members: await signInMembers(base, emails),
      category,
      seconds: SECONDS,
      workers: 6,
      settleSeconds: 150,
    });
    report.orphanUploads = await orphanUploads(dataDir, postgres?.url);
    process.stdout.write(
      `load: ${String(report.requests)} requests, memory ${JSON.stringify(report.memoryMb)}\n`,
    );

    expect(report.serverErrors).toBe(0);
    expect(report.networkErrors).toBe(0);
    expect(report.orphanUploads).toBe(0);
    expect(report.requests).toBeGreaterThan(100);
    // Every kind of request ran and did what it should, not just "no 5xx".
    const ok = (name: string, status: string) => {
      expect(report.operations[name]?.statuses[status], name).toBeGreaterThan(0);
    };
    ok("PUT like", "200");
    ok("POST comment", "201");
    ok("POST post with image", "201");
    ok("POST profile photo", "200");
    ok("GET /api/posts/:id", "200");
    if (WEB_BUILD) {
      ok("GET / (anonymous)", "200");
      ok("GET post page (signed in)", "200");
    }
    expect(report.memoryMb.settled).toBeLessThanOrEqual(settledTarget(report.memoryMb.idle));
  }, 300_000);
});
