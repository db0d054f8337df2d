/** Runs statements on one connection or transaction. */
export interface SqlExecutor {
  /** One statement with `$n` parameters; returns its rows. */
  query<Row = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<Row[]>;
  /** Several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

/**
 * The little the store needs from a PostgreSQL-dialect database, so that one
 * SQL implementation serves both embedded PGlite and a PostgreSQL server.
 */
export interface SqlClient extends SqlExecutor {
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
