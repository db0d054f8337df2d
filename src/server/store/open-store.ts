import { mkdir } from "node:fs/promises";
import path from "node:path";

import { InProcessSenderLock } from "../../evm/sender-lock.js";
import { claimDataDirectory } from "./data-dir-lock.js";
import { createPool, openPgClient } from "./pg-client.js";
import { openPGliteClient } from "./pglite-client.js";
import { PostgresSenderLock } from "./postgres-sender-lock.js";
import { SqlStore } from "./sql-store.js";
import type { Store } from "./types.js";

export interface OpenStoreOptions {
  /** The service's data directory; the embedded database lives in `<dataDir>/db`. */
  dataDir: string;
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
  const store = options.databaseUrl ? openPostgresStore(options.databaseUrl, options) : await openPGliteStore(options.dataDir);
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
  return new SqlStore(client, {
    kind: "postgres",
    location: printableDatabaseUrl(databaseUrl),
    senderLock: new PostgresSenderLock(lockPool),
    onClose: () => lockPool.end(),
  });
}

async function openPGliteStore(dataDir: string): Promise<SqlStore> {
  const directory = path.resolve(dataDir, "db");
  await mkdir(directory, { recursive: true });
  const release = await claimDataDirectory(`${directory}.lock`, `the database in ${directory}`);
  try {
    const client = await openPGliteClient(directory);
    // One process owns the directory (see claimDataDirectory), so an in-process lock serializes every sender.
    return new SqlStore(client, { kind: "pglite", location: directory, senderLock: new InProcessSenderLock(), onClose: release });
  } catch (error) {
    await release();
    throw error;
  }
}
