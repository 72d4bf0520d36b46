import { existsSync } from "node:fs";
import path from "node:path";
import type BetterSqlite3 from "better-sqlite3";

const HERE = import.meta.dirname;
const ROOT = path.resolve(HERE, path.basename(path.dirname(HERE)) === "dist" ? "../.." : "..");

/** Where scripts/build-native.js puts SQLite's search_rank function (native/search-rank.c). */
export const SEARCH_RANK_EXTENSION = path.join(ROOT, "native", "build", "search-rank.so");

/** How a SQLite connection ranks full-text matches (decision 015). */
export type SearchRanking =
  { rank: "search_rank"; extension: string } | { rank: "bm25"; why: string };

/**
 * Loads search_rank into a connection from `file` (null: leave it out). Where it is not built or
 * will not load, the connection ranks with FTS5's bm25, and the answer says why.
 */
export function loadSearchRank(
  sqlite: BetterSqlite3.Database,
  file: string | null = SEARCH_RANK_EXTENSION,
): SearchRanking {
  if (file === null) return { rank: "bm25", why: "search_rank was left out" };
  // A bare name would be looked for in the system's library folders.
  const absolute = path.resolve(file);
  if (!existsSync(absolute)) {
    return {
      rank: "bm25",
      why: `${absolute} is not built (npm ci builds it where it finds a C compiler)`,
    };
  }
  try {
    sqlite.loadExtension(absolute);
    return { rank: "search_rank", extension: absolute };
  } catch (error) {
    return { rank: "bm25", why: error instanceof Error ? error.message : String(error) };
  }
}
