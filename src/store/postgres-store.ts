import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";

import { KyselyStore } from "./kysely-store.js";
import type { OpenStoreOptions } from "./store-options.js";
import { createPool } from "./pg-client.js";
import { storageTranslatingPool } from "./pg-storage-pool.js";
import { PostgresSenderLock } from "./postgres-sender-lock.js";
import { printableDatabaseUrl } from "./postgres-url.js";
import type { Database } from "./schema.js";

/** A PostgreSQL server shared by replicas: a query pool, a pool for sender locks, and one connection for exclusive claims. */
export function openPostgresStore(databaseUrl: string, options: OpenStoreOptions): KyselyStore {
  const pool = createPool(databaseUrl, options.maxConnections ?? 10);
  const lockPool = createPool(databaseUrl, options.maxLockConnections ?? 10);
  let holder: Promise<pg.Client> | undefined;
  return new KyselyStore(new Kysely<Database>({ dialect: new PostgresDialect({ pool: storageTranslatingPool(pool) }) }), {
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
      const { rows } = await (
        await holder
      ).query<{ taken: boolean }>("SELECT pg_try_advisory_lock(hashtextextended($1 || ':' || current_schema(), 0)) AS taken", [
        `exclusive:${name}`,
      ]);
      return rows[0]?.taken === true;
    },
    onClose: async () => {
      await holder?.then((connection) => connection.end()).catch(() => undefined);
      await lockPool.end();
    },
  });
}
