import { sql, type Kysely, type Migration } from "kysely";
import { engineOf } from "../engine.js";

// A draft may be saved without a cover image (DESIGN.md 10, "Writing"; decision 022): the column
// `posts.image_key` takes null. Publishing or scheduling still requires one (the service's rule).
//
// PostgreSQL drops the constraint. SQLite cannot change a column's constraints in place: the table
// is made again with the new definition, as SQLite documents it ("Making Other Kinds Of Table
// Schema Changes"): foreign keys off, a new table, the rows copied, the old one dropped, the new one
// renamed, its indexes and triggers made again from their own SQL, the foreign keys checked, all in
// one transaction. Nothing refers to a post by its rowid (search maps its own), so the copy keeps
// everything that matters.

/** Makes SQLite's `posts` again with `change` applied to its CREATE TABLE statement. */
async function remakeSqlitePosts(db: Kysely<unknown>, change: (create: string) => string) {
  const { rows: tables } = await sql<{
    sql: string;
  }>`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'posts'`.execute(db);
  const create = tables[0]?.sql ?? "";
  const changed = change(create);
  if (changed === create) throw new Error("posts: its definition is not the one this expects");
  // Indexes and triggers go with the table: made again from their own SQL. (SQLite's own index of
  // the primary key has none, and comes back with the table.)
  const { rows: dependents } = await sql<{ sql: string }>`
    SELECT sql FROM sqlite_master
    WHERE tbl_name = 'posts' AND type IN ('index', 'trigger') AND sql IS NOT NULL`.execute(db);
  // Outside a transaction only (Kysely runs SQLite's migrations outside one). The legacy rename
  // leaves the triggers of other tables that name `posts` (search's, on users) as they are: the
  // modern one checks them while `posts` is briefly not there, and fails.
  await sql`PRAGMA foreign_keys = OFF`.execute(db);
  await sql`PRAGMA legacy_alter_table = ON`.execute(db);
  try {
    await db.transaction().execute(async (trx) => {
      await sql
        .raw(changed.replace(/^CREATE TABLE "posts"/, 'CREATE TABLE "posts_remade"'))
        .execute(trx);
      await sql`INSERT INTO posts_remade SELECT * FROM posts`.execute(trx);
      await sql`DROP TABLE posts`.execute(trx);
      await sql`ALTER TABLE posts_remade RENAME TO posts`.execute(trx);
      for (const dependent of dependents) await sql.raw(dependent.sql).execute(trx);
      const { rows: broken } = await sql`PRAGMA foreign_key_check`.execute(trx);
      if (broken.length > 0) throw new Error("posts: a foreign key does not hold after the change");
    });
  } finally {
    await sql`PRAGMA legacy_alter_table = OFF`.execute(db);
    await sql`PRAGMA foreign_keys = ON`.execute(db);
  }
}

const REQUIRED = '"image_key" text not null';
const OPTIONAL = '"image_key" text';

export const optionalCover: Migration = {
  async up(db: Kysely<unknown>) {
    if (engineOf(db) === "postgres") {
      await sql`ALTER TABLE posts ALTER COLUMN image_key DROP NOT NULL`.execute(db);
      return;
    }
    await remakeSqlitePosts(db, (create) => create.replace(REQUIRED, OPTIONAL));
  },

  async down(db: Kysely<unknown>) {
    const { rows } = await sql<{
      n: number | string;
    }>`SELECT count(*) AS n FROM posts WHERE image_key IS NULL`.execute(db);
    if (Number(rows[0]?.n ?? 0) > 0) {
      throw new Error(
        "Some posts have no cover image: give each one, or delete them, before going back before 019",
      );
    }
    if (engineOf(db) === "postgres") {
      await sql`ALTER TABLE posts ALTER COLUMN image_key SET NOT NULL`.execute(db);
      return;
    }
    await remakeSqlitePosts(db, (create) => create.replace(`${OPTIONAL},`, `${REQUIRED},`));
  },
};
