import { SqliteAdapter, type Kysely } from "kysely";

/**
 * Which engine a Kysely instance (or transaction) talks to, for the few statements that differ
 * between them (full-text search). Read from its dialect's adapter, so no caller passes it along.
 */
export const engineOf = <DB>(db: Kysely<DB>): "sqlite" | "postgres" =>
  db.getExecutor().adapter instanceof SqliteAdapter ? "sqlite" : "postgres";
