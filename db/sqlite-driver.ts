import { createRequire } from "node:module";
import type BetterSqlite3 from "better-sqlite3";

const require = createRequire(import.meta.url);

/** The package name of the driver this Node loads (below); a worker thread loads the same. */
export const SQLITE_MODULE =
  Number(process.versions.napi) < 10 ? "better-sqlite3-v12" : "better-sqlite3";

/** Where that package's entry is, for code that is not a module of this project (a worker). */
export const sqliteModulePath = () => require.resolve(SQLITE_MODULE);

/**
 * The better-sqlite3 this Node can run (docs/decisions/009-node-runtimes.md). 13 is built on
 * Node-API 10 (Node 22.14 and later) and is the one safe on Node 24: 12's classes derive from
 * `node::ObjectWrap`, whose destructor in Node 24's headers aborts the process when the garbage
 * collector frees a statement outside a JavaScript context. Node 20 has no Node-API 10 (13
 * crashes while loading there), so it runs 12, which is sound on it. Both have the same API.
 */
function loadDriver(): typeof BetterSqlite3 {
  try {
    return require(SQLITE_MODULE) as typeof BetterSqlite3;
  } catch (error) {
    if (SQLITE_MODULE === "better-sqlite3-v12") throw error;
    // npm leaves 13 out when it installs under Node 20 (its engines ask for 22).
    throw new Error(
      `better-sqlite3 13 is not installed for Node ${process.version}: run npm ci with this Node`,
      { cause: error },
    );
  }
}

export const SQLite = loadDriver();
