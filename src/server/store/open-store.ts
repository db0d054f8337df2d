import path from "node:path";

import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";

import { DataDirectory } from "../../data-directory.js";
import { InProcessSenderLock } from "../../evm/sender-lock.js";
import { KyselyStore } from "./kysely-store.js";
import { createPool } from "./pg-client.js";
import { PostgresSenderLock } from "./postgres-sender-lock.js";
import type { Database } from "./schema.js";
import { nodeSqliteDialect, openSqliteFile } from "./sqlite-dialect.js";
import type { Store } from "./types.js";

export interface OpenStoreOptions {
  /** The service's data directory; the embedded database is `<dataDir>/store.sqlite`. */
  dataDir: string;
  /**
   * The data directory as its owner (the `serve` process) described it: claimed here, so no second service opens
   * the same embedded store. Without it the store is opened beside whoever holds the directory (`apikey:create`).
   */
  dataDirectory?: DataDirectory;
  /** A PostgreSQL connection string (DATABASE_URL); when set, the server is used instead of the embedded SQLite. */
  databaseUrl?: string;
  /** Connections for queries, per process (PostgreSQL only). Default 10. */
  maxConnections?: number;
  /** Connections for sender locks, one per sender being served, per process (PostgreSQL only). Default 10. */
  maxLockConnections?: number;
}

/** A connection string without its password or parameters, fit for a startup banner. */
export function printableDatabaseUrl(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    const user = url.username ? `${url.username}@` : "";
    return `${url.protocol}//${user}${url.host}${url.pathname}`;
  } catch {
    return "a PostgreSQL server (DATABASE_URL)";
  }
}

/**
 * Opens the store and applies pending migrations: a PostgreSQL server when `databaseUrl` is set, otherwise
 * SQLite (Node's built-in `node:sqlite`) in the data directory.
 */
export async function openStore(options: OpenStoreOptions): Promise<Store> {
  const store = options.databaseUrl ? openPostgresStore(options.databaseUrl, options) : openSqliteStore(options);
  try {
    await store.migrate();
  } catch (error) {
    await store.close().catch(() => undefined);
    throw error;
  }
  return store;
}

function openSqliteStore(options: OpenStoreOptions): KyselyStore {
  options.dataDirectory?.claim();
  const directory = new DataDirectory(options.dataDir, "a token-service store");
  directory.ensureExists();
  const file = path.join(directory.path, "store.sqlite");
  const db = new Kysely<Database>({ dialect: nodeSqliteDialect(openSqliteFile(file)) });
  // The service owns the directory, so an in-process lock serializes every sender.
  return new KyselyStore(db, { kind: "sqlite", location: file, senderLock: new InProcessSenderLock() });
}

function openPostgresStore(databaseUrl: string, options: OpenStoreOptions): KyselyStore {
  const pool = createPool(databaseUrl, options.maxConnections ?? 10);
  const lockPool = createPool(databaseUrl, options.maxLockConnections ?? 10);
  let holder: Promise<pg.Client> | undefined;
  return new KyselyStore(new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), {
    kind: "postgres",
    location: printableDatabaseUrl(databaseUrl),
    senderLock: new PostgresSenderLock(lockPool),
    async claimExclusive(name) {
      // A session lock on a connection of its own: the server drops it when this process (or its connection) dies.
      holder ??= (async () => {
        const connection = new pg.Client({ connectionString: databaseUrl });
        connection.on("error", () => undefined);
        await connection.connect();
        return connection;
      })();
      // Advisory locks are per database; the schema is part of the name, so services in other schemas do not collide.
      const { rows } = await (await holder).query<{ taken: boolean }>(
        "SELECT pg_try_advisory_lock(hashtextextended($1 || ':' || current_schema(), 0)) AS taken",
        [`exclusive:${name}`],
      );
      return rows[0]?.taken === true;
    },
    onClose: async () => {
      await holder?.then((connection) => connection.end()).catch(() => undefined);
      await lockPool.end();
    },
  });
}
