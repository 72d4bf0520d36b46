import { mkdirSync } from "node:fs";
import path from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import {
  Kysely,
  Migrator,
  PostgresDialect,
  type LogEvent,
  type MigrationProvider,
  type SqliteDatabase,
} from "kysely";
import type pgModule from "pg";
import { lazyModule } from "../lib/lazy-module.js";
import { inBackground, type QueryWatcher } from "./background.js";
import { initial } from "./migrations/001-initial.js";
import { lookupIndexes } from "./migrations/002-lookup-indexes.js";
import { verifiedAddresses } from "./migrations/003-verified-addresses.js";
import { postBodies } from "./migrations/004-post-bodies.js";
import { postStatus } from "./migrations/005-post-status.js";
import { bodyImages } from "./migrations/006-body-images.js";
import { conversations } from "./migrations/007-conversations.js";
import { search } from "./migrations/008-search.js";
import { follows } from "./migrations/009-follows.js";
import { mailOutbox } from "./migrations/010-mail-outbox.js";
import { siteSettings } from "./migrations/011-site-settings.js";
import { coverAlt } from "./migrations/012-cover-alt.js";
import { postsCreatedAt } from "./migrations/013-posts-created-at.js";
import { searchPrefixes } from "./migrations/014-search-prefixes.js";
import { bodyImageBytes } from "./migrations/015-body-image-bytes.js";
import { postTagsSeo } from "./migrations/016-post-tags-seo.js";
import { searchTags } from "./migrations/017-search-tags.js";
import { postRevisions } from "./migrations/018-post-revisions.js";
import { suspensionTerms } from "./migrations/020-suspension-terms.js";
import { accountSecurity } from "./migrations/021-account-security.js";
import { integrations } from "./migrations/022-integrations.js";
import { stats } from "./migrations/023-stats.js";
import { outbox } from "./migrations/024-outbox.js";
import { newsletter } from "./migrations/025-newsletter.js";
import { newsletterDefault } from "./migrations/026-newsletter-default.js";
import { subscriberLists } from "./migrations/027-subscriber-lists.js";
import { navigation } from "./migrations/028-navigation.js";
import { pages } from "./migrations/029-pages.js";
import { series } from "./migrations/030-series.js";
import { optionalCover } from "./migrations/019-optional-cover.js";
import type { Database } from "./schema.js";
import { loadSearchRank, type SearchRanking } from "./search-rank.js";
import { SQLite } from "./sqlite-driver.js";
import { TurnTakingSqliteDialect } from "./sqlite-turns.js";
import { StripNulPlugin } from "./strip-nul.js";

export type Engine = "sqlite" | "postgres";

export interface DatabaseHandle {
  db: Kysely<Database>;
  engine: Engine;
  /** SQLite only: how its full-text matches are ranked (decision 015). */
  searchRanking?: SearchRanking;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** `postgres://...`; when absent, SQLite at `<dataDir>/blog.db`. */
  databaseUrl?: string | undefined;
  dataDir: string;
  /** Told when PostgreSQL drops an idle pooled connection. */
  onIdleError?: (error: Error) => void;
  /** Told the SQL of every query run, and whether a job ran it (tests count queries per page). */
  onQuery?: QueryWatcher;
  /** SQLite's search_rank extension (db/search-rank.ts): null leaves it out; the built one if absent. */
  searchRankExtension?: string | null;
}

function queryLog(options: DatabaseOptions): { log?: (event: LogEvent) => void } {
  const { onQuery } = options;
  if (!onQuery) return {};
  return {
    log: (event) => {
      onQuery(event.query.sql, inBackground());
    },
  };
}

const loadPg = lazyModule<typeof pgModule>("pg");

const migrations: MigrationProvider = {
  getMigrations: () =>
    Promise.resolve({
      "001-initial": initial,
      "002-lookup-indexes": lookupIndexes,
      "003-verified-addresses": verifiedAddresses,
      "004-post-bodies": postBodies,
      "005-post-status": postStatus,
      "006-body-images": bodyImages,
      "007-conversations": conversations,
      "008-search": search,
      "009-follows": follows,
      "010-mail-outbox": mailOutbox,
      "011-site-settings": siteSettings,
      "012-cover-alt": coverAlt,
      "013-posts-created-at": postsCreatedAt,
      "014-search-prefixes": searchPrefixes,
      "015-body-image-bytes": bodyImageBytes,
      "016-post-tags-seo": postTagsSeo,
      "017-search-tags": searchTags,
      "018-post-revisions": postRevisions,
      "019-optional-cover": optionalCover,
      "020-suspension-terms": suspensionTerms,
      "021-account-security": accountSecurity,
      "022-integrations": integrations,
      "023-stats": stats,
      "024-outbox": outbox,
      "025-newsletter": newsletter,
      "026-newsletter-default": newsletterDefault,
      "027-subscriber-lists": subscriberLists,
      "028-navigation": navigation,
      "029-pages": pages,
      "030-series": series,
    }),
};

/** The SQLite database file in a data folder. */
export const sqliteFile = (dataDir: string) => path.join(dataDir, "blog.db");

export function openDatabase(options: DatabaseOptions): DatabaseHandle {
  if (options.databaseUrl) {
    const pool = new (loadPg().Pool)({ connectionString: options.databaseUrl, max: 10 });
    // An idle connection the server ends (a restart, a failover) must not crash the process: the
    // pool drops it and the next query opens a new one. Errors during a query still reach it.
    pool.on("error", (error) => {
      options.onIdleError?.(error);
    });
    const db = new Kysely<Database>({
      dialect: new PostgresDialect({ pool }),
      plugins: [new StripNulPlugin()],
      ...queryLog(options),
    });
    return { db, engine: "postgres", close: () => db.destroy() };
  }
  mkdirSync(options.dataDir, { recursive: true });
  const sqlite = new SQLite(sqliteFile(options.dataDir));
  sqlite.pragma("journal_mode = WAL");
  // NORMAL in WAL mode keeps every commit across a process crash; only a power loss can drop
  // the last transactions, which is the trade every embedded deployment of SQLite makes.
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 5000");
  const searchRanking = loadSearchRank(sqlite, options.searchRankExtension);
  const db = new Kysely<Database>({
    dialect: new TurnTakingSqliteDialect(
      { database: withStatementCache(sqlite) },
      path.resolve(sqliteFile(options.dataDir)),
    ),
    plugins: [new StripNulPlugin()],
    ...queryLog(options),
  });
  return { db, engine: "sqlite", searchRanking, close: () => db.destroy() };
}

/**
 * Kysely prepares every query afresh; preparing costs about as much as running a typical query.
 * Queries are built from a fixed set of shapes (values are parameters), so the prepared statements
 * are kept by their SQL and reused, the least recently used dropped past a few hundred.
 */
function withStatementCache(sqlite: BetterSqlite3.Database): SqliteDatabase {
  const statements = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => {
      statements.clear();
      sqlite.close();
    },
    prepare: (sql: string) => {
      let statement = statements.get(sql);
      if (statement) {
        statements.delete(sql);
      } else {
        statement = sqlite.prepare(sql);
        if (statements.size >= 500) {
          const oldest = statements.keys().next();
          if (!oldest.done) statements.delete(oldest.value);
        }
      }
      statements.set(sql, statement);
      return statement;
    },
  };
}

export async function migrateToLatest(db: Kysely<Database>): Promise<void> {
  const migrator = new Migrator({ db, provider: migrations });
  const { error } = await migrator.migrateToLatest();
  if (error instanceof Error) throw error;
  if (error !== undefined) throw new Error("Database migration failed");
}

/** Migrates up or down to `name` (tests of a migration write the rows it will find). */
export async function migrateTo(db: Kysely<Database>, name: string): Promise<void> {
  const migrator = new Migrator({ db, provider: migrations });
  const { error } = await migrator.migrateTo(name);
  if (error instanceof Error) throw error;
  if (error !== undefined) throw new Error("Database migration failed");
}
