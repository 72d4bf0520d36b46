import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts"],
    // Native modules (better-sqlite3, sharp, argon2) are happiest in child processes.
    pool: "forks",
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
