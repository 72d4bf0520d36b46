import {
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Driver,
  type SqliteDialectConfig,
} from "kysely";

/**
 * Handles open on each SQLite file in this process, and the turn they take on it.
 *
 * better-sqlite3 waits for a lock by blocking the thread (busy_timeout). Two handles on one file
 * in one process (two instances of the app in a test) would then deadlock: one holds the write
 * lock between the statements of its transaction, awaiting; the other's statement blocks the
 * thread that would finish that transaction, for five seconds, then fails "database is locked".
 * While a file has more than one handle here, every connection use takes a turn on the file
 * first, as separate processes would wait on the lock without blocking each other. With one
 * handle (a running site), nothing is added.
 */
const files = new Map<string, { handles: number; turn: Promise<void> }>();

class TurnTakingDriver extends SqliteDriver {
  #release: (() => void) | undefined;

  constructor(
    config: SqliteDialectConfig,
    private readonly file: string,
  ) {
    super(config);
  }

  override async init() {
    const shared = files.get(this.file) ?? { handles: 0, turn: Promise.resolve() };
    shared.handles += 1;
    files.set(this.file, shared);
    await super.init();
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    const shared = files.get(this.file);
    if (shared && shared.handles > 1) {
      const previous = shared.turn;
      let release: () => void = () => undefined;
      shared.turn = new Promise((resolve) => {
        release = resolve;
      });
      await previous;
      const connection = await super.acquireConnection();
      this.#release = release;
      return connection;
    }
    return super.acquireConnection();
  }

  override async releaseConnection(): Promise<void> {
    await super.releaseConnection();
    const release = this.#release;
    this.#release = undefined;
    release?.();
  }

  override async destroy() {
    const shared = files.get(this.file);
    if (shared) {
      shared.handles -= 1;
      if (shared.handles === 0) files.delete(this.file);
    }
    await super.destroy();
  }
}

/** Kysely's SQLite dialect, its connection uses taking turns with other handles on `file`. */
export class TurnTakingSqliteDialect extends SqliteDialect {
  constructor(
    private readonly settings: SqliteDialectConfig,
    private readonly file: string,
  ) {
    super(settings);
  }

  override createDriver(): Driver {
    return new TurnTakingDriver(this.settings, this.file);
  }
}
