/*
 * search_rank(): how well a post matches a full-text search, for SQLite's FTS5 (decision 015).
 *
 *   SELECT rowid, search_rank(post_search, 10.0, 1.0, 4.0, 4.0) FROM post_search WHERE ...
 *
 * The sum, over the searched words and phrases and over the columns they occur in, of the column's
 * weight (the arguments, in column order; 1 for a column without one) times the saturated count of
 * occurrences, tf * (k1 + 1) / (tf + k1) with bm25's k1 of 1.2. Higher is better.
 *
 * It is bm25 without the two parts that need more than the row at hand: a word's rarity across the
 * index (bm25 reads the whole list of posts of every searched word once a query to weigh it, which
 * at 100,000 posts cost more than the search itself) and the post's length (a lookup per row in
 * the index's table of lengths). PostgreSQL's ts_rank, the other engine's ranking, uses neither.
 *
 * The table must keep positions (FTS5's default detail=full, as post_search does): with less
 * detail, xPhraseFirst finds no occurrences and every row would rank 0.
 *
 * Built by scripts/build-native.js into native/build/ when the project is installed; loaded into
 * every SQLite connection by db/search-rank.ts. Without it, searches rank with FTS5's own bm25.
 */
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT1

#define MAX_COLUMNS 16
#define K1 1.2

static void search_rank(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *context,
                        int argc, sqlite3_value **argv) {
  int columns = api->xColumnCount(fts);
  if (columns > MAX_COLUMNS) {
    sqlite3_result_error(context, "search_rank: a table of more than 16 columns", -1);
    return;
  }
  if (argc > columns) {
    sqlite3_result_error(context, "search_rank: more weights than columns", -1);
    return;
  }
  double weight[MAX_COLUMNS];
  for (int column = 0; column < columns; column++) {
    weight[column] = column < argc ? sqlite3_value_double(argv[column]) : 1.0;
  }

  double score = 0.0;
  int phrases = api->xPhraseCount(fts);
  for (int phrase = 0; phrase < phrases; phrase++) {
    int found[MAX_COLUMNS] = {0};
    Fts5PhraseIter at;
    int column = -1;
    int offset = -1;
    int rc = api->xPhraseFirst(fts, phrase, &at, &column, &offset);
    if (rc != SQLITE_OK) {
      sqlite3_result_error_code(context, rc);
      return;
    }
    /* A left-out word or phrase has no occurrences in a matching row: it adds nothing. */
    for (; column >= 0; api->xPhraseNext(fts, &at, &column, &offset)) {
      if (column < columns) found[column]++;
    }
    for (column = 0; column < columns; column++) {
      double tf = found[column];
      if (tf > 0) score += weight[column] * tf * (K1 + 1.0) / (tf + K1);
    }
  }
  sqlite3_result_double(context, score);
}

/* The FTS5 API of a connection, as SQLite's documentation shows how to ask for it. */
static fts5_api *fts5_of(sqlite3 *db) {
  fts5_api *api = 0;
  sqlite3_stmt *statement = 0;
  if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &statement, 0) == SQLITE_OK) {
    sqlite3_bind_pointer(statement, 1, (void *)&api, "fts5_api_ptr", 0);
    sqlite3_step(statement);
  }
  sqlite3_finalize(statement);
  return api;
}

int sqlite3_searchrank_init(sqlite3 *db, char **error, const sqlite3_api_routines *routines) {
  SQLITE_EXTENSION_INIT2(routines);
  fts5_api *fts5 = fts5_of(db);
  if (fts5 == 0 || fts5->iVersion < 2) {
    *error = sqlite3_mprintf("search_rank needs SQLite's FTS5");
    return SQLITE_ERROR;
  }
  return fts5->xCreateFunction(fts5, "search_rank", 0, search_rank, 0);
}
