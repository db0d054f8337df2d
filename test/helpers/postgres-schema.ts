import { randomBytes } from "node:crypto";
import pg from "pg";

export const POSTGRES_URL = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";

/** A schema of its own on the PostgreSQL server, so test runs never touch each other's tables. */
export async function freshPostgresSchema(prefix = "hts_http"): Promise<{ url: string; drop(): Promise<void> }> {
  const schema = `${prefix}_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const url = new URL(POSTGRES_URL);
  url.searchParams.set("options", `-c search_path=${schema}`);
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: POSTGRES_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    },
  };
}

export interface StoreVariant {
  name: string;
  /** The database URL to pass as `databaseUrl` (none: embedded SQLite) and how to clean up after. */
  database(): Promise<{ url: string | undefined; drop(): Promise<void> }>;
}

/** Suites that must pass on both stores run once per variant. */
export function storeVariants(prefix: string): StoreVariant[] {
  return [
    { name: "embedded SQLite", database: async () => ({ url: undefined, drop: async () => undefined }) },
    { name: "PostgreSQL server", database: () => freshPostgresSchema(prefix) },
  ];
}
