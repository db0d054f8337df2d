import { randomBytes } from "node:crypto";
import pg from "pg";

import { testPostgres } from "./postgres-server.js";

/**
 * The URL of this run's PostgreSQL server (see postgres-server.ts: DATABASE_URL, the local server, or a throwaway one
 * started for the run). Where none can be had, the suite is skipped with the reason, except under CI=true, where that
 * is a failure (as for the bitcoind suite).
 */
export async function requirePostgres(context: Mocha.Context): Promise<string> {
  const server = await testPostgres();
  if ("url" in server) return server.url;
  const reason = `${server.problem}; set DATABASE_URL to a server to run these suites`;
  if (process.env.CI === "true") throw new Error(`the PostgreSQL suites must run under CI=true, but ${reason}`);
  console.log(`      skipped: ${reason}`);
  context.skip();
}

/** A schema of its own on the PostgreSQL server, so test runs never touch each other's tables. */
export async function freshPostgresSchema(context: Mocha.Context, prefix = "hts_http"): Promise<{ url: string; drop(): Promise<void> }> {
  const serverUrl = await requirePostgres(context);
  const schema = `${prefix}_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.searchParams.set("options", `-c search_path=${schema}`);
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    },
  };
}

export interface StoreVariant {
  name: string;
  /** The database URL to pass as `databaseUrl` (none: embedded SQLite) and how to clean up after. */
  database(context: Mocha.Context): Promise<{ url: string | undefined; drop(): Promise<void> }>;
}

/** Suites that must pass on both stores run once per variant. */
export function storeVariants(prefix: string): StoreVariant[] {
  return [
    { name: "embedded SQLite", database: async () => ({ url: undefined, drop: async () => undefined }) },
    { name: "PostgreSQL server", database: (context) => freshPostgresSchema(context, prefix) },
  ];
}
