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

/** node:sqlite binds null, numbers, bigints, strings and bytes; booleans and dates are converted here. */
function bindable(parameters: ReadonlyArray<unknown>): SQLInputValue[] {
  return parameters.map((value) => {
    if (value === undefined) return null;
    if (typeof value === "boolean") return value ? 1 : 0;
    if (value instanceof Date) return value.getTime();
    return value as SQLInputValue;
  });
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
        const statement = db.prepare(text);
        entry = { statement, reader: statement.columns().length > 0 };
        if (cache.size >= cacheSize) cache.delete(cache.keys().next().value as string);
        cache.set(text, entry);
      }
      const { statement, reader } = entry;
      return {
        reader,
        all: (parameters) => statement.all(...bindable(parameters)),
        run: (parameters) => statement.run(...bindable(parameters)),
        iterate: (parameters) => statement.iterate(...bindable(parameters)) as IterableIterator<unknown>,
      };
    },
  };
}

/** Write transactions take SQLite's one write lock up front, so another process waits (busy_timeout) instead of failing. */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("begin immediate"));
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
    createDriver: () => new ImmediateSqliteDriver({ database: asKyselyDatabase(db) }),
    createIntrospector: (kysely: Kysely<unknown>) => new SqliteIntrospector(kysely),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  };
}
