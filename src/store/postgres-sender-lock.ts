import type pg from "pg";

import { InProcessSenderLock, type SenderLock } from "../chains/evm/sender-lock.js";
import { advisoryLockId } from "./advisory-lock.js";
import { inTransaction } from "./pg-client.js";

/**
 * Serializes sends per key across every process that shares one PostgreSQL
 * database. Within a process the in-process lock queues callers first, so a
 * process holds at most one connection per key; across processes a
 * transaction-scoped advisory lock does the rest and is released by COMMIT or
 * ROLLBACK, or by the server when the connection dies.
 *
 * `pool` must be dedicated to these locks: the work inside a lock writes to the
 * store, and if held locks could take every connection of the store's own pool,
 * those writes would wait forever.
 */
export class PostgresSenderLock implements SenderLock {
  private readonly local = new InProcessSenderLock();

  constructor(private readonly pool: pg.Pool) {}

  withLock<T>(key: string, work: () => Promise<T>): Promise<T> {
    return this.local.withLock(key, () =>
      inTransaction(this.pool, async (tx) => {
        await tx.query("SELECT pg_advisory_xact_lock($1::bigint)", [advisoryLockId(`sender:${key}`)]);
        return work();
      }),
    );
  }
}
