import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";

import { Kysely, PostgresDialect } from "kysely";

import { migrations } from "../../src/store/migrations.js";
import { openStore } from "../../src/store/open-store.js";
import { nodeSqliteDialect, openSqliteFile } from "../../src/store/sqlite-dialect.js";
import type { NewOperation, Store } from "../../src/store/types.js";
import { freshPostgresSchema } from "./postgres-schema.js";
import { until } from "./until.js";

// The databases the store tests (test/integration/store/store*.test.ts) run on, and what they write and measure there.

export interface Backend {
  name: "sqlite" | "postgres";
  /** Opens a store on this backend's database; every call reaches the same data. */
  open(): Promise<Store>;
  cleanup(): Promise<void>;
}

export async function sqliteBackend(_context: Mocha.Context): Promise<Backend & { dataDir: string }> {
  const dataDir = await mkdtemp(path.join(tmpdir(), "hts-store-"));
  return { name: "sqlite", dataDir, open: () => openStore({ dataDir }), cleanup: () => rm(dataDir, { recursive: true, force: true }) };
}

export async function postgresBackend(context: Mocha.Context): Promise<Backend & { databaseUrl: string }> {
  const schema = await freshPostgresSchema(context, "hts_store");
  const dataDir = await mkdtemp(path.join(tmpdir(), "hts-store-unused-"));
  return {
    name: "postgres",
    databaseUrl: schema.url,
    open: () => openStore({ dataDir, databaseUrl: schema.url }),
    async cleanup() {
      await schema.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export function operation(apiKeyId: string | null, overrides: Partial<NewOperation> = {}): NewOperation {
  return {
    id: randomUUID(),
    apiKeyId,
    kind: "launch",
    chain: "ethereum",
    network: "sepolia",
    tokenType: "ERC20",
    params: { name: "Token", symbol: "TKN", decimals: 18, initialSupply: "1000000000000000000000" },
    sender: "0x1111111111111111111111111111111111111111",
    transactionHash: null,
    contractAddress: null,
    status: "signed",
    error: null,
    ...overrides,
  };
}

/**
 * Runs `count` critical sections under one key and reports the most that ever ran at once. Each holds the lock for
 * `holdMs`, the window in which a broken lock would let another in: no condition to wait for, a correct lock shows none.
 */
export async function contend(
  stores: Store[],
  key: string,
  count: number,
  holdMs: number,
): Promise<{ maxInside: number; completed: number }> {
  let inside = 0;
  let maxInside = 0;
  let completed = 0;
  await Promise.all(
    Array.from({ length: count }, (_, index) =>
      stores[index % stores.length]!.senderLock().withLock(key, async () => {
        inside++;
        maxInside = Math.max(maxInside, inside);
        await sleep(holdMs);
        inside--;
        completed++;
      }),
    ),
  );
  return { maxInside, completed };
}

/** A second, raw Kysely on the backend's database (PostgreSQL) or on a scratch file (SQLite). */
export function rawDatabase(backend: Backend & { databaseUrl?: string }, directory: string): Kysely<any> {
  if (backend.databaseUrl)
    return new Kysely<any>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: backend.databaseUrl, max: 2 }) }) });
  return new Kysely<any>({ dialect: nodeSqliteDialect(openSqliteFile(path.join(directory, "scratch.sqlite"))) });
}

/** Now on the clock the store stamps and expires by: the database's (SQLite's is the system clock, read the same way). */
export async function databaseNow(backend: { databaseUrl?: string }): Promise<number> {
  if (backend.databaseUrl === undefined) {
    const db = new DatabaseSync(":memory:");
    try {
      return Number((db.prepare("SELECT cast(unixepoch('subsec') * 1000 AS integer) AS now").get() as { now: number }).now);
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: backend.databaseUrl });
  await client.connect();
  try {
    return Number((await client.query("SELECT (extract(epoch from now()) * 1000)::bigint AS now")).rows[0].now);
  } finally {
    await client.end();
  }
}

/** Waits until the database's clock is past `ms` (a lease or a retention ending then has run out). */
export function untilDatabaseClockPasses(backend: { databaseUrl?: string }, ms: number, what: string): Promise<void> {
  return until(async () => (await databaseNow(backend)) > ms, `the database's clock passes ${what}`);
}

export const ALL_MIGRATIONS = Object.keys(migrations("sqlite"));

export const backends: Array<(context: Mocha.Context) => Promise<Backend & { dataDir?: string; databaseUrl?: string }>> = [
  sqliteBackend,
  postgresBackend,
];
