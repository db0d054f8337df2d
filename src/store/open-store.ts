import path from "node:path";

import { Kysely } from "kysely";

import { DataDirectory } from "./data-directory.js";
import { InProcessSenderLock } from "../chains/evm/sender-lock.js";
import { KyselyStore } from "./kysely-store.js";
import type { Database } from "./schema.js";
import { nodeSqliteDialect, openSqliteFile } from "./sqlite-dialect.js";
import type { OpenStoreOptions } from "./store-options.js";
import type { Store } from "./types.js";

export type { OpenStoreOptions } from "./store-options.js";

export { printableDatabaseUrl } from "./postgres-url.js";

/**
 * Opens the store and applies pending migrations: a PostgreSQL server when `databaseUrl` is set, otherwise
 * SQLite (Node's built-in `node:sqlite`) in the data directory.
 */
export async function openStore(options: OpenStoreOptions): Promise<Store> {
  // pg loads only for a PostgreSQL server: an embedded store does not pay for it.
  const store = options.databaseUrl
    ? (await import("./postgres-store.js")).openPostgresStore(options.databaseUrl, options)
    : openSqliteStore(options);
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
