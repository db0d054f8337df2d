import { mkdir } from "node:fs/promises";
import path from "node:path";

import { InProcessSenderLock } from "../../evm/sender-lock.js";
import pg from "pg";

import { DataDirectory } from "../../data-directory.js";
import { createPool, openPgClient } from "./pg-client.js";
import { openPGliteClient } from "./pglite-client.js";
import { PostgresSenderLock } from "./postgres-sender-lock.js";
import { SqlStore } from "./sql-store.js";
import type { Store } from "./types.js";

export interface OpenStoreOptions {
  /** The service's data directory; the embedded database lives in `<dataDir>/db`. */
  dataDir: string;
  /** The data directory as its owner described it; claimed here if not yet, released here only if made here. */
  dataDirectory?: DataDirectory;
  /** A PostgreSQL connection string (DATABASE_URL); when set, the server is used instead of PGlite. */
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
 * Opens the store and applies pending migrations: a PostgreSQL server when
 * `databaseUrl` is set, otherwise embedded PGlite in the data directory.
 */
export async function openStore(options: OpenStoreOptions): Promise<Store> {
  const store = options.databaseUrl ? openPostgresStore(options.databaseUrl, options) : await openPGliteStore(options.dataDirectory ?? new DataDirectory(options.dataDir, "a token-service store"), options.dataDirectory === undefined);
  try {
    await store.migrate();
  } catch (error) {
    await store.close().catch(() => undefined);
    throw error;
  }
  return store;
}

function openPostgresStore(databaseUrl: string, options: OpenStoreOptions): SqlStore {
  const client = openPgClient(databaseUrl, options.maxConnections ?? 10);
  const lockPool = createPool(databaseUrl, options.maxLockConnections ?? 10);
  let holder: Promise<pg.Client> | undefined;
  return new SqlStore(client, {
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

async function openPGliteStore(dataDirectory: DataDirectory, releaseOnClose: boolean): Promise<SqlStore> {
  // PGlite does not guard its files against a second process (a second open hangs, two writers corrupt them).
  dataDirectory.claim();
  const release = async () => {
    if (releaseOnClose) dataDirectory.release();
  };
  const directory = path.join(dataDirectory.path, "db");
  try {
    await mkdir(directory, { recursive: true, mode: 0o700 });
    const client = await openPGliteClient(directory);
    // One process owns the directory, so an in-process lock serializes every sender.
    return new SqlStore(client, { kind: "pglite", location: directory, senderLock: new InProcessSenderLock(), onClose: release });
  } catch (error) {
    await release();
    throw error;
  }
}
