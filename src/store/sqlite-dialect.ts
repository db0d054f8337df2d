import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite";

import {
  CompiledQuery,
  SqliteAdapter,
  SqliteDriver,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Kysely,
  type SqliteDatabase,
} from "kysely";

import { createPrivateFile } from "./private-file.js";
import { translatingStorageErrors } from "./storage-errors.js";

/** node:sqlite binds null, numbers, bigints, strings and bytes; booleans and dates are converted here. */
function bindable(parameters: ReadonlyArray<unknown>): SQLInputValue[] {
  return parameters.map((value) => {
    if (value === undefined) return null;
    if (typeof value === "boolean") return value ? 1 : 0;
    if (value instanceof Date) return value.getTime();
    return value as SQLInputValue;
  });
}

/** Rows read one at a time, a storage failure on the way thrown as STORAGE_UNAVAILABLE. */
function* translatedRows(rows: IterableIterator<unknown>): IterableIterator<unknown> {
  for (;;) {
    const next = translatingStorageErrors(() => rows.next());
    if (next.done === true) return;
    yield next.value;
  }
}

/**
 * Node's built-in SQLite in the shape Kysely's SQLite driver expects (better-sqlite3's). Statements are
 * cached by their text (Kysely prepares on every query); the cache is bounded because dynamic updates
 * have several shapes.
 */
function asKyselyDatabase(db: DatabaseSync, cacheSize = 200): SqliteDatabase {
  const cache = new Map<string, { statement: StatementSync; reader: boolean }>();
  return {
    close: () => db.close(),
    prepare(text) {
      let entry = cache.get(text);
      if (entry === undefined) {
        const statement = translatingStorageErrors(() => db.prepare(text));
        entry = { statement, reader: statement.columns().length > 0 };
        if (cache.size >= cacheSize) cache.delete(cache.keys().next().value as string);
        cache.set(text, entry);
      }
      const { statement, reader } = entry;
      return {
        reader,
        all: (parameters) => translatingStorageErrors(() => statement.all(...bindable(parameters))),
        run: (parameters) => translatingStorageErrors(() => statement.run(...bindable(parameters))),
        iterate: (parameters) => translatedRows(statement.iterate(...bindable(parameters)) as IterableIterator<unknown>),
      };
    },
  };
}

/**
 * Write transactions take SQLite's one write lock up front, so another process waits (busy_timeout) instead of failing.
 *
 * A write that fails for want of storage (SQLITE_FULL, SQLITE_IOERR, …), the statement's or the COMMIT's, may make SQLite
 * roll the whole transaction back by itself (https://sqlite.org/lang_transaction.html, "Response To Errors Within A
 * Transaction"). The ROLLBACK that follows then fails with "cannot rollback - no transaction is active", and Kysely would
 * throw that instead of the storage error: a 500 where the client should get 503 STORAGE_UNAVAILABLE. So a rollback
 * runs only while a transaction is open, and no statement ever runs inside one a failed rollback left open (it would
 * never be committed): the connection rolls it back before it is used again, or refuses with the rollback's error.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  constructor(
    private readonly file: DatabaseSync,
    database: SqliteDatabase,
  ) {
    super({ database });
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await super.acquireConnection();
    try {
      this.endLeftoverTransaction();
    } catch (error) {
      await super.releaseConnection();
      throw error;
    }
    return connection;
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("begin immediate"));
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (!this.file.isTransaction) return;
    try {
      await connection.executeQuery(CompiledQuery.raw("rollback"));
    } catch (error) {
      // Rolled back after all (by SQLite, as the ROLLBACK failed): the caller's own error is the one to report.
      if (!this.file.isTransaction) return;
      throw error;
    }
  }

  override async releaseConnection(): Promise<void> {
    // A transaction still open here is one whose ROLLBACK failed: tried again now, and else when next acquired.
    try {
      this.endLeftoverTransaction();
    } catch {
      // acquireConnection tries again, and refuses until it holds.
    }
    await super.releaseConnection();
  }

  /** Rolls back a transaction that nothing holds any longer; throws the rollback's error if it cannot. */
  private endLeftoverTransaction(): void {
    if (this.file.isTransaction) translatingStorageErrors(() => this.file.exec("rollback"));
  }
}

/** SQLite has transactional DDL: the Migrator then applies all pending migrations in one transaction. */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

/**
 * Opens the embedded store's file: WAL (a second process, such as `apikey:create`, may write beside the
 * service), synchronous FULL (a commit survives a power cut, not only a crash), and a busy timeout.
 */
export function openSqliteFile(file: string): DatabaseSync {
  createPrivateFile(file);
  const db = new DatabaseSync(file);
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA busy_timeout = 5000;");
  return db;
}

export function nodeSqliteDialect(db: DatabaseSync): Dialect {
  return {
    createAdapter: () => new TransactionalDdlSqliteAdapter(),
    createDriver: () => new ImmediateSqliteDriver(db, asKyselyDatabase(db)),
    createIntrospector: (kysely: Kysely<unknown>) => new SqliteIntrospector(kysely),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  };
}
