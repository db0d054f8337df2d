import { PGlite } from "@electric-sql/pglite";

import type { SqlClient, SqlExecutor } from "./sql-client.js";

interface PGliteLike {
  query<T>(text: string, params?: unknown[]): Promise<{ rows: T[] }>;
  exec(sql: string): Promise<unknown>;
}

function executor(db: PGliteLike): SqlExecutor {
  return {
    async query<Row>(text: string, params: readonly unknown[] = []) {
      return (await db.query<Row>(text, [...params])).rows;
    },
    async exec(sql: string) {
      await db.exec(sql);
    },
  };
}

/** Embedded PostgreSQL (WebAssembly) whose files live in `directory`; one process at a time. */
export async function openPGliteClient(directory: string): Promise<SqlClient> {
  const db = await PGlite.create(directory);
  return {
    ...executor(db),
    transaction: (work) => db.transaction((tx) => work(executor(tx))),
    close: () => db.close(),
  };
}
