import type { PostgresPool, PostgresPoolClient } from "kysely";
import type pg from "pg";

import { asStorageError } from "./storage-errors.js";

/**
 * The pool Kysely queries through, with a full or failing server disk (53100, 58030) thrown as STORAGE_UNAVAILABLE as
 * the embedded store throws SQLite's, so both stores answer storage trouble the same way.
 */
export function storageTranslatingPool(pool: pg.Pool): PostgresPool {
  const wrapped = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  return {
    async connect() {
      const client = await pool.connect();
      // One wrapper per client: Kysely keeps a connection per client object.
      let wrapper = wrapped.get(client);
      if (wrapper === undefined) {
        wrapper = {
          query: ((...args: unknown[]) => {
            const result = (client.query as (...params: unknown[]) => unknown)(...args);
            return result instanceof Promise ? result.catch((error: unknown) => Promise.reject(asStorageError(error))) : result;
          }) as PostgresPoolClient["query"],
          release: () => client.release(),
        };
        wrapped.set(client, wrapper);
      }
      return wrapper;
    },
    end: () => pool.end(),
  };
}
