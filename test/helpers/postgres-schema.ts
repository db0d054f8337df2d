import { randomBytes } from "node:crypto";
import pg from "pg";

import { testPostgres } from "./postgres-server.js";

/**
 * The URL of this run's PostgreSQL server (see postgres-server.ts: DATABASE_URL, the local server, or a throwaway one
 * started for the run). Where none can be had, that is a failure naming why, never a skipped suite: the throwaway
 * server comes with the devDependencies, so a run without PostgreSQL is a broken run, not a partial one.
 */
export async function requirePostgres(_context?: Mocha.Context): Promise<string> {
  const server = await testPostgres();
  if ("url" in server) return server.url;
  throw new Error(`the PostgreSQL suites have no server: ${server.problem}; set DATABASE_URL to a server to run them against`);
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
