import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Native modules (better-sqlite3, sharp, argon2) are happiest in child processes.
    pool: "forks",
    // Two files at once where they may (the API and unit tests: each has its own server and
    // database, and much of their time is waiting on them); the browser, reliability and runtime
    // tests run one at a time (their own `fileParallelism`), as timing and memory checks need.
    // Measured on the 2-core machine: 16 API files 144 s one at a time, 88 s two at a time.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 120_000,
    projects: [
      {
        extends: true,
        test: {
          name: "api",
          include: ["tests/api/**/*.test.ts", "tests/unit/**/*.test.ts"],
        },
      },
      {
        extends: true,
        test: {
          // Memory, latency, crashes and scale-out: each file alone on the machine, so what it
          // measures is its own. `npm run test:api` runs these after the API tests.
          name: "reliability",
          include: ["tests/reliability/**/*.test.ts", "tests/scale/**/*.test.ts"],
          fileParallelism: false,
        },
      },
      {
        extends: true,
        test: {
          // What can differ between Node releases: the runtime (HTTP, streams, worker threads,
          // crypto, zlib, child processes) and the native modules (better-sqlite3 and the
          // search_rank extension, sharp, argon2). CI runs these under each other supported
          // release; the rest of the API tests is plain JavaScript over the same runtime. Files of
          // "api" and "reliability": `npm test` names its projects, so these run once there.
          name: "runtime",
          include: [
            "tests/unit/**/*.test.ts",
            "tests/reliability/{sqlite-driver,crash,image-memory,render-cost,slow-clients,webhook-outbox}.test.ts",
            "tests/api/{server,config,logs,compression,auth,passkeys,two-factor,posts,comments}.test.ts",
            "tests/api/{search,markdown,profile-photo,body-images,image-work,upload-attacks}.test.ts",
            "tests/api/{export-import,import-wordpress,webhooks,conversation-mail}.test.ts",
          ],
          // One at a time: the reliability files among these measure memory and latency.
          fileParallelism: false,
        },
      },
      {
        extends: true,
        test: {
          name: "e2e",
          include: ["tests/e2e/**/*.test.ts"],
          // Builds the site once before any browser test runs.
          globalSetup: ["tests/e2e/build-site.ts"],
          testTimeout: 60_000,
          // One browser at a time: two Chromiums beside the API tests overload a 2-core machine,
          // and a journey that waits on rendering then times out. One retry absorbs a stall; a
          // broken journey still fails twice.
          fileParallelism: false,
          retry: 1,
        },
      },
    ],
  },
});
