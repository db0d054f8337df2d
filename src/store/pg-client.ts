import pg from "pg";

/** Runs statements on one connection or transaction. */
export interface SqlExecutor {
  /** One statement with `$n` parameters; returns its rows. */
  query<Row = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<Row[]>;
  /** Several statements without parameters. */
  exec(sql: string): Promise<void>;
}

function executor(client: pg.Pool | pg.PoolClient): SqlExecutor {
  return {
    async query<Row>(text: string, params: readonly unknown[] = []) {
      return (await client.query(text, [...params])).rows as Row[];
    },
    async exec(sql: string) {
      // Without parameters pg uses the simple protocol, which accepts several statements.
      await client.query(sql);
    },
  };
}

/** Runs `work` in a transaction on a client of its own taken from `pool`. */
export async function inTransaction<T>(pool: pg.Pool, work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query("BEGIN");
    const result = await work(executor(client));
    await client.query("COMMIT");
    return result;
  } catch (error) {
    try {
      await client.query("ROLLBACK");
    } catch (rollbackError) {
      // A connection that cannot roll back is not returned to the pool.
      broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
    }
    throw error;
  } finally {
    client.release(broken);
  }
}

export function createPool(connectionString: string, max: number): pg.Pool {
  const pool = new pg.Pool({ connectionString, max });
  // An idle client that loses its connection emits here; without a listener that would crash the process.
  // The pool drops the client, and the next query opens a new connection or reports the failure.
  pool.on("error", () => undefined);
  // A client in use has no listener of the pool's: a connection lost mid-query would emit an 'error' nobody hears, which
  // crashes the process. The query itself fails (and is reported as an outage) all the same.
  pool.on("connect", (client) => client.on("error", () => undefined));
  return pool;
}
