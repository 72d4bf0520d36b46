import { sql, type Kysely, type Migration } from "kysely";
import { engineOf } from "../engine.js";
import type { BodyFormat } from "../schema.js";
import { bodyText } from "./frozen-renderer.js";

/** The columns the backfill reads and writes. */
interface BackfillDatabase {
  posts: { id: string; description: string; body_format: BodyFormat; body_text: string };
}

/** Rows read at a time: a batch of the longest bodies (20,000 characters) stays a few MB. */
const BATCH = 200;

async function backfillBodyText(db: Kysely<unknown>) {
  const posts = db as unknown as Kysely<BackfillDatabase>;
  let after = "";
  for (;;) {
    const rows = await posts
      .selectFrom("posts")
      .select(["id", "description", "body_format"])
      .where("id", ">", after)
      .orderBy("id")
      .limit(BATCH)
      .execute();
    for (const row of rows) {
      await posts
        .updateTable("posts")
        .set({ body_text: bodyText(row.description, row.body_format) })
        .where("id", "=", row.id)
        .execute();
    }
    const last = rows.at(-1);
    if (!last || rows.length < BATCH) return;
    after = last.id;
  }
}

// --- SQLite: an FTS5 index ------------------------------------------------------------------------
//
// `post_search` holds no copy of the text (contentless, deletable by rowid); `post_search_docs`
// maps its integer rowids to post ids, since a text-keyed table's own rowid may change on VACUUM.
// Only published posts have a row. The triggers run in the transaction of the write that fires
// them, whatever wrote it (a service, the scheduler, a cascade from a deleted account, an import).
const SQLITE_UP = [
  `CREATE TABLE post_search_docs (doc INTEGER PRIMARY KEY, post_id TEXT NOT NULL UNIQUE)`,
  `CREATE VIRTUAL TABLE post_search USING fts5(
     title, body, category, author,
     tokenize = 'porter unicode61 remove_diacritics 0',
     prefix = '2 3',
     content = '', contentless_delete = 1
   )`,
  `INSERT INTO post_search_docs (post_id) SELECT id FROM posts WHERE status = 'published' ORDER BY id`,
  `INSERT INTO post_search (rowid, title, body, category, author)
     SELECT d.doc, p.title, p.body_text, p.category, u.username
     FROM post_search_docs d JOIN posts p ON p.id = d.post_id JOIN users u ON u.id = p.user_id`,
  `CREATE TRIGGER post_search_insert AFTER INSERT ON posts WHEN new.status = 'published' BEGIN
     INSERT INTO post_search_docs (post_id) VALUES (new.id);
     INSERT INTO post_search (rowid, title, body, category, author)
       SELECT d.doc, new.title, new.body_text, new.category,
              (SELECT username FROM users WHERE id = new.user_id)
       FROM post_search_docs d WHERE d.post_id = new.id;
   END`,
  `CREATE TRIGGER post_search_update AFTER UPDATE OF title, body_text, category, status, user_id
   ON posts
   WHEN old.title IS NOT new.title OR old.body_text IS NOT new.body_text
     OR old.category IS NOT new.category OR old.status IS NOT new.status
     OR old.user_id IS NOT new.user_id
   BEGIN
     DELETE FROM post_search
       WHERE rowid = (SELECT doc FROM post_search_docs WHERE post_id = old.id);
     DELETE FROM post_search_docs WHERE post_id = old.id;
     INSERT INTO post_search_docs (post_id) SELECT new.id WHERE new.status = 'published';
     INSERT INTO post_search (rowid, title, body, category, author)
       SELECT d.doc, new.title, new.body_text, new.category,
              (SELECT username FROM users WHERE id = new.user_id)
       FROM post_search_docs d WHERE d.post_id = new.id;
   END`,
  `CREATE TRIGGER post_search_delete AFTER DELETE ON posts BEGIN
     DELETE FROM post_search
       WHERE rowid = (SELECT doc FROM post_search_docs WHERE post_id = old.id);
     DELETE FROM post_search_docs WHERE post_id = old.id;
   END`,
  `CREATE TRIGGER post_search_author AFTER UPDATE OF username ON users
   WHEN old.username IS NOT new.username
   BEGIN
     DELETE FROM post_search WHERE rowid IN (
       SELECT d.doc FROM post_search_docs d JOIN posts p ON p.id = d.post_id
       WHERE p.user_id = new.id);
     INSERT INTO post_search (rowid, title, body, category, author)
       SELECT d.doc, p.title, p.body_text, p.category, new.username
       FROM post_search_docs d JOIN posts p ON p.id = d.post_id WHERE p.user_id = new.id;
   END`,
];

const SQLITE_DOWN = [
  `DROP TRIGGER post_search_author`,
  `DROP TRIGGER post_search_delete`,
  `DROP TRIGGER post_search_update`,
  `DROP TRIGGER post_search_insert`,
  `DROP TABLE post_search`,
  `DROP TABLE post_search_docs`,
];

// --- PostgreSQL: a tsvector per published post, under a GIN index ------------------------------
//
// Weights: the title A, category and author B, the body D (ts_rank reads them as 1, 0.4, 0.1).
// A deleted post (or a deleted account's posts, by cascade) takes its row along by foreign key.
const POSTGRES_UP = [
  `CREATE TABLE post_search (
     post_id text PRIMARY KEY REFERENCES posts (id) ON DELETE CASCADE,
     document tsvector NOT NULL
   )`,
  `CREATE INDEX post_search_document ON post_search USING gin (document)`,
  `CREATE FUNCTION post_search_document(title text, body text, category text, author text)
   RETURNS tsvector LANGUAGE sql IMMUTABLE AS $$
     SELECT setweight(to_tsvector('english'::regconfig, title), 'A')
         || setweight(to_tsvector('english'::regconfig, category), 'B')
         || setweight(to_tsvector('english'::regconfig, coalesce(author, '')), 'B')
         || setweight(to_tsvector('english'::regconfig, body), 'D')
   $$`,
  `INSERT INTO post_search (post_id, document)
     SELECT p.id, post_search_document(p.title, p.body_text, p.category, u.username)
     FROM posts p JOIN users u ON u.id = p.user_id WHERE p.status = 'published'`,
  `CREATE FUNCTION post_search_sync() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF NEW.status = 'published' THEN
       INSERT INTO post_search (post_id, document)
       VALUES (NEW.id, post_search_document(NEW.title, NEW.body_text, NEW.category,
               (SELECT username FROM users WHERE id = NEW.user_id)))
       ON CONFLICT (post_id) DO UPDATE SET document = EXCLUDED.document;
     ELSE
       DELETE FROM post_search WHERE post_id = NEW.id;
     END IF;
     RETURN NULL;
   END
   $$`,
  `CREATE TRIGGER post_search_insert AFTER INSERT ON posts
   FOR EACH ROW EXECUTE FUNCTION post_search_sync()`,
  `CREATE TRIGGER post_search_update AFTER UPDATE OF title, body_text, category, status, user_id
   ON posts FOR EACH ROW
   WHEN (OLD.title IS DISTINCT FROM NEW.title OR OLD.body_text IS DISTINCT FROM NEW.body_text
     OR OLD.category IS DISTINCT FROM NEW.category OR OLD.status IS DISTINCT FROM NEW.status
     OR OLD.user_id IS DISTINCT FROM NEW.user_id)
   EXECUTE FUNCTION post_search_sync()`,
  `CREATE FUNCTION post_search_author() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     UPDATE post_search s
       SET document = post_search_document(p.title, p.body_text, p.category, NEW.username)
       FROM posts p WHERE p.id = s.post_id AND p.user_id = NEW.id;
     RETURN NULL;
   END
   $$`,
  `CREATE TRIGGER post_search_author AFTER UPDATE OF username ON users FOR EACH ROW
   WHEN (OLD.username IS DISTINCT FROM NEW.username)
   EXECUTE FUNCTION post_search_author()`,
];

const POSTGRES_DOWN = [
  `DROP TRIGGER post_search_author ON users`,
  `DROP FUNCTION post_search_author()`,
  `DROP TRIGGER post_search_update ON posts`,
  `DROP TRIGGER post_search_insert ON posts`,
  `DROP FUNCTION post_search_sync()`,
  `DROP TABLE post_search`,
  `DROP FUNCTION post_search_document(text, text, text, text)`,
];

// Full-text search (decision 015): `posts.body_text` keeps each body's plain text (written with
// the post, backfilled here), and a search index of the published posts is built from it and
// kept in step by triggers.
export const search: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable("posts")
      .addColumn("body_text", "text", (column) => column.notNull().defaultTo(""))
      .execute();
    await backfillBodyText(db);
    const statements = engineOf(db) === "sqlite" ? SQLITE_UP : POSTGRES_UP;
    for (const statement of statements) await sql.raw(statement).execute(db);
  },

  async down(db: Kysely<unknown>) {
    const statements = engineOf(db) === "sqlite" ? SQLITE_DOWN : POSTGRES_DOWN;
    for (const statement of statements) await sql.raw(statement).execute(db);
    await db.schema.alterTable("posts").dropColumn("body_text").execute();
  },
};
