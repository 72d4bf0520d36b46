import { sql, type Expression } from "kysely";

/** `text` as a LIKE pattern that matches it anywhere, its own % _ and \ taken literally. */
const containing = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * `value` contains `text`, as one LIKE that means the same on SQLite and PostgreSQL (the escape
 * named). Case is the caller's: PostgreSQL's LIKE heeds it, so compare lowercased sides.
 */
export const likeContaining = (value: Expression<string>, text: string) =>
  sql<boolean>`${value} LIKE ${containing(text)} ESCAPE '\\'`;
