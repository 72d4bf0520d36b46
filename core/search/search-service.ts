import { sql, type RawBuilder } from "kysely";
import { SEARCH_MATCHES_MAX } from "../../contract/limits.js";
import { SearchQuerySchema } from "../../contract/search.js";
import { engineOf } from "../../db/engine.js";
import { ReadWorkerGone, type ReadWorker } from "../../db/read-worker.js";
import type { CoreDeps } from "../deps.js";
import { listPublishedPostsWithText } from "../posts/posts-service.js";
import { pageOf } from "../posts/queries.js";
import { validate } from "../shared/validate.js";
import { ftsExpression, parseSearchText, tsQueryText, type SearchTerms } from "./search-text.js";
import { snippetOf } from "./snippet.js";

interface Page {
  limit: number;
  offset: number;
}

/** The ids of a page of matches, best first, and how many match in all. */
interface Matches {
  ids: string[];
  total: number;
}

// How well a post matches, higher first, with the column weights (title, body, category, author)
// as PostgreSQL's A, D, B, B: search_rank when SQLite has it (native/search-rank.c), else bm25
// (lower is better there, so negated), which reads the whole list of posts of every searched word
// once a query to weigh it (decision 015).
const RANK = {
  search_rank: sql`search_rank(post_search, 10.0, 1.0, 4.0, 4.0)`,
  bm25: sql`-bm25(post_search, 10.0, 1.0, 4.0, 4.0)`,
};

/** Read workers found gone, each told of once. */
const mourned = new WeakSet<ReadWorker>();

/**
 * A read of the index: on the read worker's thread when there is one (the index read is most of
 * what a search costs), else, or if that thread is gone, on the main connection.
 */
async function readIndex<Row>(deps: CoreDeps, query: RawBuilder<Row>): Promise<Row[]> {
  if (deps.offThread) {
    const { sql: text, parameters } = query.compile(deps.db);
    try {
      return await deps.offThread.all<Row>(text, parameters);
    } catch (error) {
      if (!(error instanceof ReadWorkerGone)) throw error;
      if (!mourned.has(deps.offThread)) {
        mourned.add(deps.offThread);
        deps.log.warn({ err: error }, "searching on the main thread: the read worker is gone");
      }
    }
  }
  return (await query.execute(deps.db)).rows;
}

async function matchSqlite(deps: CoreDeps, terms: SearchTerms, page: Page): Promise<Matches> {
  const match = ftsExpression(terms);
  // One statement: the newest matches by rowid (FTS5 walks its index in that order and stops),
  // ranked; the count is the candidates' own. Only the page's matches are looked up by post id.
  const rows = await readIndex(
    deps,
    sql<{ id: string; total: number | bigint }>`
    WITH candidates AS MATERIALIZED (
      SELECT rowid AS doc, ${RANK[deps.searchRank ?? "bm25"]} AS score FROM post_search
      WHERE post_search MATCH ${match}
      ORDER BY rowid DESC LIMIT ${SEARCH_MATCHES_MAX}
    ), shown AS MATERIALIZED (
      SELECT doc, score FROM candidates ORDER BY score DESC, doc DESC
      LIMIT ${page.limit} OFFSET ${page.offset}
    )
    SELECT d.post_id AS id, (SELECT count(*) FROM candidates) AS total
    FROM shown JOIN post_search_docs d ON d.doc = shown.doc
    ORDER BY shown.score DESC, shown.doc DESC`,
  );
  if (rows.length > 0 || page.offset === 0) {
    return { ids: rows.map((row) => row.id), total: Number(rows[0]?.total ?? 0) };
  }
  // Past the last page: the count alone.
  const [count] = await readIndex(
    deps,
    sql<{ n: number | bigint }>`
      SELECT count(*) AS n FROM (
        SELECT 1 FROM post_search WHERE post_search MATCH ${match} LIMIT ${SEARCH_MATCHES_MAX}
      )`,
  );
  return { ids: [], total: Number(count?.n ?? 0) };
}

async function matchPostgres(deps: CoreDeps, terms: SearchTerms, page: Page): Promise<Matches> {
  const query = sql`to_tsquery('english', ${tsQueryText(terms)})`;
  const [rows, count] = await Promise.all([
    sql<{ id: string }>`
      SELECT s.post_id AS id
      FROM post_search s, ${query} q
      WHERE s.document @@ q
      ORDER BY ts_rank(s.document, q) DESC, s.post_id DESC
      LIMIT ${page.limit} OFFSET ${page.offset}`.execute(deps.db),
    sql<{ n: number | string }>`
      SELECT count(*) AS n FROM (
        SELECT 1 FROM post_search WHERE document @@ ${query} LIMIT ${SEARCH_MATCHES_MAX}
      ) AS found`.execute(deps.db),
  ]);
  return { ids: rows.rows.map((row) => row.id), total: Number(count.rows[0]?.n ?? 0) };
}

/**
 * `GET /api/search`: a page of the published posts that match, best first, each with a snippet of
 * its text around the best match (decision 015).
 */
export async function searchPosts(deps: CoreDeps, query: unknown) {
  const { q, pageNumber } = validate(SearchQuerySchema, query);
  const terms = parseSearchText(q);
  const page = pageOf(pageNumber);
  const { ids, total } =
    engineOf(deps.db) === "sqlite"
      ? await matchSqlite(deps, terms, page)
      : await matchPostgres(deps, terms, page);
  const found = await listPublishedPostsWithText(deps, ids);
  return {
    total,
    // Added to the summary made for this answer rather than spread into a copy of it. Measured
    // under a stream of searches: with the copies, V8's old generation grew ~3 KB a search and
    // a full collection (3-9 ms, every request waiting) ran about once a second; without, one
    // or none in 8 s after start-up (decision 015). Why V8 kept the copies that long is unknown.
    posts: found.map(({ post, text }) => Object.assign(post, { snippet: snippetOf(text, terms) })),
  };
}

export type SearchResults = Awaited<ReturnType<typeof searchPosts>>;
