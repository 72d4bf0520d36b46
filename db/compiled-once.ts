import type { Compilable, CompiledQuery, Kysely } from "kysely";
import { withoutNul } from "./strip-nul.js";

/** A value a query binds. */
export type QueryParameter = string | number | bigint | boolean | null;

/** What one call binds, and the shape of its SQL: what it depends on besides the values. */
export interface Binding {
  /** Names every choice the builder makes (which conditions, how many ids); one shape if absent. */
  shape?: string;
  /** The query's parameters, in the order its SQL binds them (constants it binds included). */
  parameters: readonly QueryParameter[];
}

/**
 * A read whose SQL depends only on its shape (which conditions a list has, how many ids it is
 * given), compiled once per database and shape and then run with each call's parameters. Building
 * and compiling a query with Kysely costs several times what SQLite takes to run a small one
 * (decision 015: ~0.4 ms against ~0.2 ms for a page of search results), and a shape's SQL never
 * changes. Compiled per Kysely instance: SQLite and PostgreSQL compile to different SQL.
 *
 * The parameters given must be the compiled query's, in order: checked at a shape's first compile,
 * so a builder that comes to add a parameter of its own fails at once instead of binding wrongly;
 * a later call whose count differs (a shape that names too little) fails too.
 */
export function compiledOnce<DB>() {
  const compiled = new WeakMap<Kysely<DB>, Map<string, CompiledQuery>>();
  return async <Row>(
    db: Kysely<DB>,
    { shape = "", parameters }: Binding,
    build: () => Compilable<Row>,
  ): Promise<Row[]> => {
    let byShape = compiled.get(db);
    if (!byShape) {
      byShape = new Map();
      compiled.set(db, byShape);
    }
    // As StripNulPlugin (db/connect.ts) cleans the values of the queries it compiles.
    const values = parameters.map(withoutNul);
    let query = byShape.get(shape);
    if (!query) {
      query = build().compile();
      const same =
        query.parameters.length === values.length &&
        query.parameters.every((parameter, index) => parameter === values[index]);
      if (!same) {
        throw new Error(
          `compiledOnce (${shape}): the parameters given must be the query's, in order`,
        );
      }
      byShape.set(shape, query);
    } else if (query.parameters.length !== values.length) {
      throw new Error(`compiledOnce (${shape}): another count of parameters for the same shape`);
    }
    const result = await db.executeQuery<Row>({ ...query, parameters: values });
    return result.rows;
  };
}
