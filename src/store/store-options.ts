import type { DataDirectory } from "./data-directory.js";

/** How `openStore` opens the store: the embedded SQLite file in the data directory, or a PostgreSQL server. */
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
