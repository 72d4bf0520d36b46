import { sql, type Kysely, type Migration } from "kysely";
import { engineOf } from "../engine.js";

// Search matches tags (DESIGN.md 10, "Writing"): a post's tags are indexed beside its category,
// with the category's weight (decision 015), and a change of tags indexes the post again. The
// triggers of 008 are made again with `tags` in them; the index keeps its columns, so nothing is
// rebuilt but the rows of posts that already have tags.
const indexedCategory = (row: string) => `${row}.category || ' ' || ${row}.tags`;

const sqliteTriggers = (category: (row: string) => string, tagsToo: boolean) => [
  `CREATE TRIGGER post_search_insert AFTER INSERT ON posts WHEN new.status = 'published' BEGIN
     INSERT INTO post_search_docs (post_id) VALUES (new.id);
     INSERT INTO post_search (rowid, title, body, category, author)
       SELECT d.doc, new.title, new.body_text, ${category("new")},
              (SELECT username FROM users WHERE id = new.user_id)
       FROM post_search_docs d WHERE d.post_id = new.id;
   END`,
  `CREATE TRIGGER post_search_update
   AFTER UPDATE OF title, body_text, category, status, user_id${tagsToo ? ", tags" : ""} ON posts
   WHEN old.title IS NOT new.title OR old.body_text IS NOT new.body_text
     OR old.category IS NOT new.category OR old.status IS NOT new.status
     OR old.user_id IS NOT new.user_id${tagsToo ? " OR old.tags IS NOT new.tags" : ""}
   BEGIN
     DELETE FROM post_search
       WHERE rowid = (SELECT doc FROM post_search_docs WHERE post_id = old.id);
     DELETE FROM post_search_docs WHERE post_id = old.id;
     INSERT INTO post_search_docs (post_id) SELECT new.id WHERE new.status = 'published';
     INSERT INTO post_search (rowid, title, body, category, author)
       SELECT d.doc, new.title, new.body_text, ${category("new")},
              (SELECT username FROM users WHERE id = new.user_id)
       FROM post_search_docs d WHERE d.post_id = new.id;
   END`,
  `CREATE TRIGGER post_search_author AFTER UPDATE OF username ON users
   WHEN old.username IS NOT new.username
   BEGIN
     DELETE FROM post_search WHERE rowid IN (
       SELECT d.doc FROM post_search_docs d JOIN posts p ON p.id = d.post_id
       WHERE p.user_id = new.id);
     INSERT INTO post_search (rowid, title, body, category, author)
       SELECT d.doc, p.title, p.body_text, ${category("p")}, new.username
       FROM post_search_docs d JOIN posts p ON p.id = d.post_id WHERE p.user_id = new.id;
   END`,
];

/** Indexes again the published posts that have tags, with the category `category` makes. */
const sqliteReindex = (category: (row: string) => string) => [
  `DELETE FROM post_search WHERE rowid IN (
     SELECT d.doc FROM post_search_docs d JOIN posts p ON p.id = d.post_id WHERE p.tags <> '')`,
  `INSERT INTO post_search (rowid, title, body, category, author)
     SELECT d.doc, p.title, p.body_text, ${category("p")}, u.username
     FROM post_search_docs d JOIN posts p ON p.id = d.post_id JOIN users u ON u.id = p.user_id
     WHERE p.tags <> ''`,
];

const SQLITE_DROP = [
  `DROP TRIGGER post_search_insert`,
  `DROP TRIGGER post_search_update`,
  `DROP TRIGGER post_search_author`,
];

const postgresFunctions = (category: (row: string) => string) => [
  `CREATE OR REPLACE FUNCTION post_search_sync() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF NEW.status = 'published' THEN
       INSERT INTO post_search (post_id, document)
       VALUES (NEW.id, post_search_document(NEW.title, NEW.body_text, ${category("NEW")},
               (SELECT username FROM users WHERE id = NEW.user_id)))
       ON CONFLICT (post_id) DO UPDATE SET document = EXCLUDED.document;
     ELSE
       DELETE FROM post_search WHERE post_id = NEW.id;
     END IF;
     RETURN NULL;
   END
   $$`,
  `CREATE OR REPLACE FUNCTION post_search_author() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     UPDATE post_search s
       SET document = post_search_document(p.title, p.body_text, ${category("p")}, NEW.username)
       FROM posts p WHERE p.id = s.post_id AND p.user_id = NEW.id;
     RETURN NULL;
   END
   $$`,
  `DROP TRIGGER post_search_update ON posts`,
];

const postgresUpdateTrigger = (tagsToo: boolean) =>
  `CREATE TRIGGER post_search_update
   AFTER UPDATE OF title, body_text, category, status, user_id${tagsToo ? ", tags" : ""}
   ON posts FOR EACH ROW
   WHEN (OLD.title IS DISTINCT FROM NEW.title OR OLD.body_text IS DISTINCT FROM NEW.body_text
     OR OLD.category IS DISTINCT FROM NEW.category OR OLD.status IS DISTINCT FROM NEW.status
     OR OLD.user_id IS DISTINCT FROM NEW.user_id${tagsToo ? " OR OLD.tags IS DISTINCT FROM NEW.tags" : ""})
   EXECUTE FUNCTION post_search_sync()`;

const postgresReindex = (category: (row: string) => string) =>
  `UPDATE post_search s
     SET document = post_search_document(p.title, p.body_text, ${category("p")}, u.username)
     FROM posts p JOIN users u ON u.id = p.user_id
     WHERE p.id = s.post_id AND p.tags <> ''`;

const plainCategory = (row: string) => `${row}.category`;

async function run(db: Kysely<unknown>, statements: readonly string[]) {
  if (engineOf(db) === "postgres") {
    // Kysely runs PostgreSQL's migrations in a transaction already.
    for (const statement of statements) await sql.raw(statement).execute(db);
    return;
  }
  // SQLite's run outside one: a crash between dropping a trigger and making it again would
  // leave writes that the index never sees.
  await db.transaction().execute(async (trx) => {
    for (const statement of statements) await sql.raw(statement).execute(trx);
  });
}

export const searchTags: Migration = {
  async up(db: Kysely<unknown>) {
    await run(
      db,
      engineOf(db) === "sqlite"
        ? [
            ...SQLITE_DROP,
            ...sqliteTriggers(indexedCategory, true),
            ...sqliteReindex(indexedCategory),
          ]
        : [
            ...postgresFunctions(indexedCategory),
            postgresUpdateTrigger(true),
            postgresReindex(indexedCategory),
          ],
    );
  },

  async down(db: Kysely<unknown>) {
    await run(
      db,
      engineOf(db) === "sqlite"
        ? [...sqliteReindex(plainCategory), ...SQLITE_DROP, ...sqliteTriggers(plainCategory, false)]
        : [
            postgresReindex(plainCategory),
            ...postgresFunctions(plainCategory),
            postgresUpdateTrigger(false),
          ],
    );
  },
};
