import { sql, type Kysely } from "kysely";
import type { Database } from "../../db/schema.js";
import type { CellValue } from "./archive.js";
import { TABLE_KEYS, type CarriedTable } from "./tables.js";

/** Rows read or written a statement at a time (16 columns each stays far below both engines' limits). */
export const ROW_BATCH = 500;

type Row = Record<string, unknown>;
/** The same database seen as tables of loose rows: export and import handle every table alike. */
type LooseDatabase = Record<string, Row>;
const loose = (db: Kysely<Database>) => db as unknown as Kysely<LooseDatabase>;

/** Every table of the database (views and the engine's own left out), with its columns in order. */
export async function tablesOf(db: Kysely<Database>) {
  const tables = await db.introspection.getTables({ withInternalKyselyTables: true });
  return tables
    .filter((table) => !table.isView)
    .map((table) => ({ name: table.name, columns: table.columns.map((column) => column.name) }));
}

export async function columnsOf(db: Kysely<Database>, table: string) {
  const found = (await tablesOf(db)).find((candidate) => candidate.name === table);
  if (!found) throw new Error(`The database has no table ${table}: is it migrated?`);
  return found.columns;
}

/** The name of the last migration run, or undefined before the first. */
export async function latestMigration(db: Kysely<Database>) {
  const names = (await tablesOf(db)).map((table) => table.name);
  if (!names.includes("kysely_migration")) return undefined;
  const row = await loose(db)
    .selectFrom("kysely_migration")
    .select("name")
    .orderBy("name", "desc")
    .limit(1)
    .executeTakeFirst();
  return typeof row?.name === "string" ? row.name : undefined;
}

/** The rows of a table in its key's order, a batch at a time. */
export async function* readRows(
  db: Kysely<Database>,
  table: CarriedTable,
  columns: readonly string[],
): AsyncGenerator<Row[]> {
  for (let offset = 0; ; offset += ROW_BATCH) {
    let query = loose(db).selectFrom(table).select(columns);
    for (const key of TABLE_KEYS[table]) query = query.orderBy(key);
    const rows = await query.limit(ROW_BATCH).offset(offset).execute();
    yield rows;
    if (rows.length < ROW_BATCH) return;
  }
}

export async function insertRows(
  db: Kysely<Database>,
  table: string,
  rows: readonly Record<string, CellValue>[],
) {
  if (rows.length > 0) await loose(db).insertInto(table).values(rows).execute();
}

/** Whether a table has any row. */
export async function hasRows(db: Kysely<Database>, table: string) {
  const row = await loose(db)
    .selectFrom(table)
    .select(sql<number>`1`.as("one"))
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
