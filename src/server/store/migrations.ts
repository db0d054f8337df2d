import { advisoryLockId } from "./advisory-lock.js";
import type { SqlClient } from "./sql-client.js";

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Append only: a released migration is never edited, a change is a new version. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "api keys, operations, idempotency, rate limits",
    sql: `
      CREATE TABLE api_keys (
        id text PRIMARY KEY,
        label text,
        key_hash text NOT NULL UNIQUE,
        created_at timestamptz NOT NULL DEFAULT now()
      );

      CREATE TABLE operations (
        id text PRIMARY KEY,
        api_key_id text,
        kind text NOT NULL CHECK (kind IN ('launch', 'mint', 'faucet')),
        chain text NOT NULL,
        network text NOT NULL,
        token_type text,
        params jsonb NOT NULL DEFAULT '{}',
        sender text,
        transaction_hash text,
        contract_address text,
        status text NOT NULL CHECK (status IN ('signed', 'pending', 'mined', 'failed')),
        error jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX operations_by_key_newest_first ON operations (api_key_id, created_at DESC, id DESC);

      -- body is json, not jsonb: a replay returns the first response with its keys in their original order.
      CREATE TABLE idempotency (
        api_key_id text,
        route text NOT NULL,
        key text NOT NULL,
        request_hash text NOT NULL,
        status text NOT NULL CHECK (status IN ('in_progress', 'done')),
        status_code integer,
        body json,
        created_at timestamptz NOT NULL DEFAULT now(),
        completed_at timestamptz
      );
      CREATE UNIQUE INDEX idempotency_claim ON idempotency ((coalesce(api_key_id, '')), route, key);

      -- window_start is milliseconds since the epoch, on the database's clock, shared by every replica.
      CREATE TABLE rate_limits (
        bucket text NOT NULL,
        window_start bigint NOT NULL,
        count integer NOT NULL,
        PRIMARY KEY (bucket, window_start)
      );
    `,
  },
  {
    version: 2,
    name: "operation lifecycle: raw transactions, transitions, tracker leases; idempotency leases and retention",
    sql: `
      ALTER TABLE operations DROP CONSTRAINT operations_status_check;
      ALTER TABLE operations ADD CONSTRAINT operations_status_check CHECK (status IN ('signed', 'pending', 'mined', 'failed', 'dropped'));
      ALTER TABLE operations
        ADD COLUMN nonce bigint,
        ADD COLUMN raw_transaction text,
        ADD COLUMN block_number bigint,
        ADD COLUMN block_hash text,
        ADD COLUMN result jsonb,
        ADD COLUMN transitions jsonb NOT NULL DEFAULT '[]',
        ADD COLUMN next_check_at timestamptz,
        ADD COLUMN lease_owner text,
        ADD COLUMN lease_until timestamptz,
        ADD COLUMN missing_since timestamptz,
        ADD COLUMN mined_at timestamptz;
      CREATE INDEX operations_due ON operations (next_check_at) WHERE next_check_at IS NOT NULL;
      CREATE INDEX operations_by_transaction_hash ON operations (lower(transaction_hash));
      CREATE INDEX operations_unfinished_by_sender ON operations (chain, network, sender, nonce) WHERE status IN ('signed', 'pending');
      -- Records a crash left unfinished are resumed by the tracker.
      UPDATE operations SET next_check_at = now() WHERE status IN ('signed', 'pending');

      ALTER TABLE idempotency
        ADD COLUMN operation_id text,
        ADD COLUMN lease_until timestamptz,
        ADD COLUMN expires_at timestamptz;
      UPDATE idempotency SET expires_at = created_at + interval '24 hours', lease_until = created_at;
      ALTER TABLE idempotency ALTER COLUMN expires_at SET NOT NULL;
      CREATE INDEX idempotency_expiry ON idempotency (expires_at);
    `,
  },
];

/**
 * Applies the pending migrations in one transaction. Replicas that start at
 * once queue on a transaction-scoped advisory lock, and each one reads the
 * applied versions only after taking it, so every migration runs exactly once.
 */
export async function migrate(client: SqlClient, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  return client.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock($1::bigint)", [advisoryLockId("migrations")]);
    await tx.exec(`
      CREATE TABLE IF NOT EXISTS schema_migrations (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )
    `);
    const rows = await tx.query<{ version: number }>("SELECT version FROM schema_migrations");
    const applied = new Set(rows.map((row) => Number(row.version)));
    const newlyApplied: number[] = [];
    for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
      if (applied.has(migration.version)) continue;
      await tx.exec(migration.sql);
      await tx.query("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", [migration.version, migration.name]);
      newlyApplied.push(migration.version);
    }
    return newlyApplied;
  });
}
