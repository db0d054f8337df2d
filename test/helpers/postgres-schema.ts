import { randomBytes } from "node:crypto";
import pg from "pg";

export const POSTGRES_URL = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";

let probe: Promise<string | undefined> | undefined;

/** Why no PostgreSQL server answers at POSTGRES_URL, or undefined when one does; asked once per run. */
function postgresProblem(): Promise<string | undefined> {
  probe ??= (async () => {
    const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 3_000 });
    client.on("error", () => undefined);
    try {
      await client.connect();
      await client.query("SELECT 1");
      return undefined;
    } catch (error) {
      return (error as Error).message || String(error);
    } finally {
      await client.end().catch(() => undefined);
    }
  })();
  return probe;
}

/**
 * A machine with only Node and npm has no PostgreSQL server: the suites that need one are then skipped with the
 * reason, except under CI=true, where that is a failure (as for the bitcoind suite).
 */
export async function requirePostgres(context: Mocha.Context): Promise<void> {
  const problem = await postgresProblem();
  if (problem === undefined) return;
  const url = new URL(POSTGRES_URL);
  const reason = `no PostgreSQL server answers at ${url.host}${url.pathname} (${problem}); set DATABASE_URL to one to run these suites`;
  if (process.env.CI === "true") throw new Error(`the PostgreSQL suites must run under CI=true, but ${reason}`);
  console.log(`      skipped: ${reason}`);
  context.skip();
}

/** A schema of its own on the PostgreSQL server, so test runs never touch each other's tables. */
export async function freshPostgresSchema(context: Mocha.Context, prefix = "hts_http"): Promise<{ url: string; drop(): Promise<void> }> {
  await requirePostgres(context);
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
  database(context: Mocha.Context): Promise<{ url: string | undefined; drop(): Promise<void> }>;
}

/** Suites that must pass on both stores run once per variant. */
export function storeVariants(prefix: string): StoreVariant[] {
  return [
    { name: "embedded SQLite", database: async () => ({ url: undefined, drop: async () => undefined }) },
    { name: "PostgreSQL server", database: (context) => freshPostgresSchema(context, prefix) },
  ];
}
