import { existsSync } from "node:fs";
import path from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import { SEARCH_RANK_EXTENSION } from "./search-rank.js";
import { SQLite } from "./sqlite-driver.js";

/** Where scripts/build-native.js puts release_free_memory (native/release-memory.c). */
export const RELEASE_MEMORY_EXTENSION = path.join(
  path.dirname(SEARCH_RANK_EXTENSION),
  "release-memory.so",
);

/** The call, once loaded into a connection of its own; null where it is not built or loads not. */
let release: BetterSqlite3.Statement | null | undefined;

/**
 * Gives the memory the C allocator holds free back to the system (decision 030), through the
 * SQLite extension that can reach malloc_trim; says whether it could. Nothing of the database is
 * touched: the call runs in an in-memory connection of its own, whichever database the site uses.
 */
export function releaseFreeMemory(): boolean {
  if (release === undefined) {
    release = null;
    if (existsSync(RELEASE_MEMORY_EXTENSION)) {
      try {
        const connection = new SQLite(":memory:");
        connection.loadExtension(RELEASE_MEMORY_EXTENSION);
        release = connection.prepare("select release_free_memory()").pluck();
      } catch {
        // Left to the allocator, as where it is not built.
      }
    }
  }
  if (!release) return false;
  release.get();
  return true;
}
