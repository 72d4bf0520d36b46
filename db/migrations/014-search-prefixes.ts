import { sql, type Kysely, type Migration } from "kysely";
import { engineOf } from "../engine.js";

// SQLite only (decision 015). The last word of a search is matched by prefix. FTS5 reads a prefix
// it has no index for by merging, in full, the list of posts of every word it begins, before it
// can stop at the newest matches: a prefix of a word in most of 100,000 posts cost ~3 ms where the
// word alone cost ~0.4. With an index of prefixes of every length from 2 to 16 letters (008 had 2
// and 3), such a prefix costs what a word costs; the index takes about twice the room (a length
// adds entries only for the words at least that long, so the longer ones cost little). An FTS5
// table's options are fixed when it is made, so the index is made again from the posts (the
// triggers of 008 name the table, not its options, and keep working). PostgreSQL's GIN index
// reads prefixes as they are. At 100,000 posts this takes about 8 seconds of the first start.
const indexWith = (prefixes: string) => [
  `DROP TABLE post_search`,
  `CREATE VIRTUAL TABLE post_search USING fts5(
     title, body, category, author,
     tokenize = 'porter unicode61 remove_diacritics 0',
     prefix = '${prefixes}',
     content = '', contentless_delete = 1
   )`,
  `INSERT INTO post_search (rowid, title, body, category, author)
     SELECT d.doc, p.title, p.body_text, p.category, u.username
     FROM post_search_docs d JOIN posts p ON p.id = d.post_id JOIN users u ON u.id = p.user_id`,
  // One segment rather than the many a bulk insert leaves: every search reads fewer.
  `INSERT INTO post_search (post_search) VALUES ('optimize')`,
];

/**
 * Makes the index again with `prefixes`, in one transaction: Kysely runs SQLite's migrations
 * outside one (its adapter does not claim transactional DDL), and a crash between the drop and
 * the fill would leave the triggers of 008 writing to a table that is not there.
 */
async function makeIndex(db: Kysely<unknown>, prefixes: string) {
  await db.transaction().execute(async (trx) => {
    for (const statement of indexWith(prefixes)) await sql.raw(statement).execute(trx);
  });
}

export const searchPrefixes: Migration = {
  async up(db: Kysely<unknown>) {
    if (engineOf(db) === "sqlite") await makeIndex(db, "2 3 4 5 6 7 8 9 10 11 12 13 14 15 16");
  },

  async down(db: Kysely<unknown>) {
    if (engineOf(db) === "sqlite") await makeIndex(db, "2 3");
  },
};
