import { randomUUID } from "node:crypto";

import { invalidArgument } from "../../errors.js";
import type { SenderLock } from "../../evm/sender-lock.js";
import { generateApiKey, hashApiKey, sameHash } from "./api-key-secret.js";
import { migrate } from "./migrations.js";
import { decodeOperationCursor, encodeOperationCursor } from "./operation-cursor.js";
import type { SqlClient } from "./sql-client.js";
import type { LeasedOperation, OperationChange, OperationTransition } from "../../operations/types.js";
import type {
  ApiKeyRecord,
  IdempotencyBegin,
  IdempotencyClaim,
  NewOperation,
  OperationPage,
  OperationPatch,
  OperationRecord,
  RateLimitResult,
  Store,
} from "./types.js";

export const MAX_PAGE_SIZE = 100;

interface OperationRow {
  id: string;
  nonce: string | number | null;
  raw_transaction: string | null;
  block_number: string | number | null;
  block_hash: string | null;
  result: Record<string, unknown> | null;
  transitions: OperationTransition[];
  missing_since: Date | string | null;
  mined_at: Date | string | null;
  api_key_id: string | null;
  kind: OperationRecord["kind"];
  chain: string;
  network: string;
  token_type: string | null;
  params: Record<string, unknown>;
  sender: string | null;
  transaction_hash: string | null;
  contract_address: string | null;
  status: OperationRecord["status"];
  error: OperationRecord["error"];
  created_at: Date | string;
  updated_at: Date | string;
  created_us: string;
}

interface IdempotencyRow {
  request_hash: string;
  status: "in_progress" | "done";
  status_code: number | null;
  body: unknown;
  operation_id: string | null;
  lease_expired: boolean;
}

/** Both drivers parse timestamptz into a Date; the string branch only guards a driver that does not. */
function isoTime(value: Date | string): string {
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

function toRecord(row: OperationRow): OperationRecord {
  return {
    id: row.id,
    apiKeyId: row.api_key_id,
    kind: row.kind,
    chain: row.chain,
    network: row.network,
    tokenType: row.token_type,
    params: row.params,
    sender: row.sender,
    transactionHash: row.transaction_hash,
    contractAddress: row.contract_address,
    nonce: row.nonce === null ? null : Number(row.nonce),
    rawTransaction: row.raw_transaction,
    status: row.status,
    error: row.error,
    blockNumber: row.block_number === null ? null : Number(row.block_number),
    blockHash: row.block_hash,
    result: row.result,
    transitions: row.transitions ?? [],
    createdAt: isoTime(row.created_at),
    updatedAt: isoTime(row.updated_at),
  };
}

function toLeased(row: OperationRow): LeasedOperation {
  return {
    ...toRecord(row),
    missingSince: row.missing_since === null ? null : isoTime(row.missing_since),
    minedAt: row.mined_at === null ? null : isoTime(row.mined_at),
  };
}

const OPERATION_COLUMNS = `id, api_key_id, kind, chain, network, token_type, params, sender, transaction_hash, contract_address,
  status, error, created_at, updated_at, (extract(epoch FROM created_at) * 1000000)::bigint::text AS created_us,
  nonce, raw_transaction, block_number, block_hash, result, transitions, missing_since, mined_at`;

/** JSON parameters go in as text with a cast: pg would turn a JS array into a PostgreSQL array. */
function json(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}

const DEFAULT_CLAIM: IdempotencyClaim = { leaseMs: 120_000, retentionMs: 24 * 3_600_000 };

/** Matches a nullable api_key_id with the same expression as the unique index, so the index serves it. */
const SAME_IDEMPOTENCY_KEY = "coalesce(api_key_id, '') = coalesce($1::text, '') AND route = $2 AND key = $3";

export interface SqlStoreOptions {
  kind: Store["kind"];
  location: string;
  senderLock: SenderLock;
  /** Takes a named lock for the life of this store, across every process that shares it; false when another holds it. */
  claimExclusive?: (name: string) => Promise<boolean>;
  /** Runs after the client is closed (release a data directory, end a lock pool). */
  onClose?: () => Promise<void>;
}

/** The store on any PostgreSQL-dialect client: the same SQL for PGlite and a PostgreSQL server. */
export class SqlStore implements Store {
  readonly kind: Store["kind"];
  readonly location: string;
  private readonly lock: SenderLock;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly client: SqlClient,
    private readonly options: SqlStoreOptions,
  ) {
    this.kind = options.kind;
    this.location = options.location;
    this.lock = options.senderLock;
  }

  /** One process per database may hold `name` (an embedded store has only one process anyway). */
  async claimExclusive(name: string): Promise<boolean> {
    return this.options.claimExclusive === undefined ? true : this.options.claimExclusive(name);
  }

  async migrate(): Promise<void> {
    await migrate(this.client);
  }

  async ping(): Promise<void> {
    await this.client.query("SELECT 1");
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      try {
        await this.client.close();
      } finally {
        await this.options.onClose?.();
      }
    })();
    return this.closing;
  }

  async createApiKey(label?: string): Promise<{ id: string; key: string }> {
    const id = randomUUID();
    const key = generateApiKey();
    await this.client.query("INSERT INTO api_keys (id, label, key_hash) VALUES ($1, $2, $3)", [id, label ?? null, hashApiKey(key)]);
    return { id, key };
  }

  async verifyApiKey(key: string): Promise<string | undefined> {
    // The lookup is by the SHA-256 of the presented key, never by the key. How long the index search
    // takes can depend on how many leading characters of that digest match a stored one, but a digest
    // prefix tells nothing about the secret: turning it into a key means inverting SHA-256 over 256
    // random bits. The final comparison is constant-time all the same.
    const presented = hashApiKey(key);
    const rows = await this.client.query<{ id: string; key_hash: string }>("SELECT id, key_hash FROM api_keys WHERE key_hash = $1", [
      presented,
    ]);
    const row = rows[0];
    return row !== undefined && sameHash(row.key_hash, presented) ? row.id : undefined;
  }

  async listApiKeys(): Promise<ApiKeyRecord[]> {
    const rows = await this.client.query<{ id: string; label: string | null; created_at: Date | string }>(
      "SELECT id, label, created_at FROM api_keys ORDER BY created_at, id",
    );
    return rows.map((row) => ({ id: row.id, label: row.label, createdAt: isoTime(row.created_at) }));
  }

  async insertOperation(operation: NewOperation): Promise<void> {
    const unfinished = operation.status === "signed" || operation.status === "pending";
    const transitions: OperationTransition[] = [{ status: operation.status, at: new Date().toISOString(), reason: operation.reason ?? "recorded" }];
    await this.client.query(
      `INSERT INTO operations (id, api_key_id, kind, chain, network, token_type, params, sender, transaction_hash, contract_address, status, error,
         nonce, raw_transaction, block_number, block_hash, result, transitions, next_check_at, mined_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10, $11, $12::jsonb, $13, $14, $15, $16, $17::jsonb, $18::jsonb,
         CASE WHEN $19::bigint IS NULL THEN NULL ELSE now() + $19::bigint * interval '1 millisecond' END,
         CASE WHEN $11 = 'mined' THEN now() END)`,
      [
        operation.id,
        operation.apiKeyId,
        operation.kind,
        operation.chain,
        operation.network,
        operation.tokenType,
        json(operation.params ?? {}),
        operation.sender,
        operation.transactionHash,
        operation.contractAddress,
        operation.status,
        json(operation.error),
        operation.nonce ?? null,
        operation.rawTransaction ?? null,
        operation.blockNumber ?? null,
        operation.blockHash ?? null,
        json(operation.result),
        json(transitions),
        unfinished ? String(operation.checkInMs ?? 0) : null,
      ],
    );
  }

  async changeOperation(id: string, change: OperationChange, leaseOwner?: string): Promise<OperationRecord | undefined> {
    const params: unknown[] = [id];
    const param = (value: unknown) => `$${params.push(value)}`;
    const assignments = ["updated_at = now()"];
    const conditions = ["id = $1"];
    if (change.status !== undefined) {
      assignments.push(`status = ${param(change.status)}`);
      if (change.status === "mined") assignments.push("mined_at = now()");
    }
    if (change.reason !== undefined) {
      const transition = { status: change.status ?? null, at: new Date().toISOString(), reason: change.reason };
      // A transition without a status change keeps the current one.
      assignments.push(`transitions = transitions || jsonb_build_array(${param(JSON.stringify(transition))}::jsonb || jsonb_build_object('status', coalesce(${param(change.status ?? null)}::text, status)))`);
    }
    const columns = { blockNumber: "block_number", blockHash: "block_hash", result: "result", error: "error" } as const;
    for (const [field, column] of Object.entries(columns) as [keyof typeof columns, string][]) {
      if (change[field] === undefined) continue;
      const value = field === "result" || field === "error" ? json(change[field]) : change[field];
      assignments.push(`${column} = ${param(value)}${field === "result" || field === "error" ? "::jsonb" : ""}`);
    }
    if (change.missingSince !== undefined) assignments.push(`missing_since = ${param(change.missingSince)}::timestamptz`);
    if (change.checkInMs !== undefined) {
      assignments.push(change.checkInMs === null ? "next_check_at = NULL" : `next_check_at = now() + ${param(String(change.checkInMs))}::bigint * interval '1 millisecond'`);
    }
    if (change.from !== undefined) conditions.push(`status = ANY(${param([...change.from])}::text[])`);
    if (leaseOwner !== undefined) {
      conditions.push(`lease_owner = ${param(leaseOwner)}`);
      assignments.push("lease_owner = NULL", "lease_until = NULL");
    }
    const rows = await this.client.query<OperationRow>(
      `UPDATE operations SET ${assignments.join(", ")} WHERE ${conditions.join(" AND ")} RETURNING ${OPERATION_COLUMNS}`,
      params,
    );
    return rows[0] === undefined ? undefined : toRecord(rows[0]);
  }

  async findByTransactionHash(chain: string, network: string, transactionHash: string): Promise<OperationRecord | undefined> {
    const rows = await this.client.query<OperationRow>(
      `SELECT ${OPERATION_COLUMNS} FROM operations WHERE lower(transaction_hash) = lower($3) AND chain = $1 AND network = $2 ORDER BY created_at DESC LIMIT 1`,
      [chain, network, transactionHash],
    );
    return rows[0] === undefined ? undefined : toRecord(rows[0]);
  }

  async nextUnfinishedNonce(chain: string, network: string, sender: string): Promise<number | undefined> {
    const [row] = await this.client.query<{ next: string | number | null }>(
      `SELECT max(nonce) + 1 AS next FROM operations WHERE chain = $1 AND network = $2 AND sender = $3 AND status IN ('signed', 'pending')`,
      [chain, network, sender],
    );
    return row?.next === null || row?.next === undefined ? undefined : Number(row.next);
  }

  async reclaimAfterRestart(pairs?: ReadonlyArray<{ chain: string; network: string }>): Promise<void> {
    const params: unknown[] = [];
    let scope = "TRUE";
    if (pairs !== undefined) {
      params.push(pairs.map((pair) => `${pair.chain}/${pair.network}`));
      scope = "chain || '/' || network = ANY($1::text[])";
    }
    await this.client.query(
      `UPDATE operations SET lease_owner = NULL, lease_until = NULL,
         next_check_at = CASE WHEN status = 'signed' THEN now() ELSE next_check_at END
       WHERE next_check_at IS NOT NULL AND ${scope}`,
      params,
    );
    // Claims cannot say which chain they were for: only a store no other process opens frees them all.
    if (pairs === undefined) await this.client.query("UPDATE idempotency SET lease_until = now() WHERE status = 'in_progress'");
  }

  async leaseDueOperations(owner: string, leaseMs: number, limit: number): Promise<LeasedOperation[]> {
    // SKIP LOCKED: replicas polling at once each take other records instead of queueing on the same rows.
    const rows = await this.client.query<OperationRow>(
      `UPDATE operations SET lease_owner = $1, lease_until = now() + $2::bigint * interval '1 millisecond'
       WHERE id IN (
         SELECT id FROM operations
         WHERE next_check_at IS NOT NULL AND next_check_at <= now() AND (lease_until IS NULL OR lease_until < now())
         ORDER BY next_check_at LIMIT $3 FOR UPDATE SKIP LOCKED)
       RETURNING ${OPERATION_COLUMNS}`,
      [owner, String(Math.round(leaseMs)), limit],
    );
    return rows.map(toLeased);
  }

  async updateOperation(id: string, patch: OperationPatch): Promise<void> {
    const columns: Record<keyof OperationPatch, string> = {
      transactionHash: "transaction_hash = $%",
      contractAddress: "contract_address = $%",
      status: "status = $%",
      error: "error = $%::jsonb",
    };
    const assignments: string[] = [];
    const params: unknown[] = [id];
    for (const field of Object.keys(columns) as (keyof OperationPatch)[]) {
      if (!(field in patch) || patch[field] === undefined) continue;
      params.push(field === "error" ? json(patch.error) : patch[field]);
      assignments.push(columns[field].replace("%", String(params.length)));
    }
    const rows = await this.client.query(
      `UPDATE operations SET ${[...assignments, "updated_at = now()"].join(", ")} WHERE id = $1 RETURNING id`,
      params,
    );
    if (rows.length === 0) throw new Error(`no operation ${id} to update`);
  }

  async getOperation(id: string): Promise<OperationRecord | undefined> {
    const rows = await this.client.query<OperationRow>(`SELECT ${OPERATION_COLUMNS} FROM operations WHERE id = $1`, [id]);
    return rows[0] === undefined ? undefined : toRecord(rows[0]);
  }

  async listOperations(apiKeyId: string | null, options: { limit: number; cursor?: string }): Promise<OperationPage> {
    const { limit } = options;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
      throw invalidArgument("limit", `limit must be an integer from 1 to ${MAX_PAGE_SIZE}`);
    }
    const params: unknown[] = [limit + 1];
    const conditions: string[] = [];
    if (apiKeyId === null) {
      conditions.push("api_key_id IS NULL");
    } else {
      params.push(apiKeyId);
      conditions.push(`api_key_id = $${params.length}`);
    }
    if (options.cursor !== undefined) {
      const after = decodeOperationCursor(options.cursor);
      params.push(after.createdAtMicros, after.id);
      // Microseconds since the epoch, added as an interval: exact, where a floating-point to_timestamp would not be.
      conditions.push(
        `(created_at, id) < (timestamptz 'epoch' + $${params.length - 1}::bigint * interval '1 microsecond', $${params.length})`,
      );
    }
    const rows = await this.client.query<OperationRow>(
      `SELECT ${OPERATION_COLUMNS} FROM operations WHERE ${conditions.join(" AND ")} ORDER BY created_at DESC, id DESC LIMIT $1`,
      params,
    );
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      items: page.map(toRecord),
      nextCursor: rows.length > limit && last ? encodeOperationCursor({ createdAtMicros: last.created_us, id: last.id }) : null,
    };
  }

  async beginIdempotent(
    apiKeyId: string | null,
    route: string,
    idempotencyKey: string,
    requestHash: string,
    claim: IdempotencyClaim = DEFAULT_CLAIM,
  ): Promise<IdempotencyBegin> {
    const scope = [apiKeyId, route, idempotencyKey];
    // A claim released (or expired) between the insert and the read leaves nothing to read: claim again.
    for (;;) {
      await this.client.query(`DELETE FROM idempotency WHERE ${SAME_IDEMPOTENCY_KEY} AND expires_at < now()`, scope);
      const claimed = await this.client.query(
        `INSERT INTO idempotency (api_key_id, route, key, request_hash, status, operation_id, lease_until, expires_at)
         VALUES ($1, $2, $3, $4, 'in_progress', $5, now() + $6::bigint * interval '1 millisecond', now() + $7::bigint * interval '1 millisecond')
         ON CONFLICT DO NOTHING RETURNING 1`,
        [...scope, requestHash, claim.operationId ?? null, String(claim.leaseMs), String(claim.retentionMs)],
      );
      if (claimed.length > 0) return { state: "new" };
      const [existing] = await this.client.query<IdempotencyRow>(
        `SELECT request_hash, status, status_code, body, operation_id, (lease_until < now()) AS lease_expired FROM idempotency WHERE ${SAME_IDEMPOTENCY_KEY}`,
        scope,
      );
      if (existing === undefined) continue;
      if (existing.request_hash !== requestHash) return { state: "conflict" };
      if (existing.status === "done") return { state: "replay", statusCode: Number(existing.status_code), body: existing.body };
      if (!existing.lease_expired) return { state: "in_progress" };
      // The owner died (or overran its lease): take the claim over, once, for whoever gets here first.
      const [taken] = await this.client.query<{ operation_id: string | null }>(
        `UPDATE idempotency SET lease_until = now() + $4::bigint * interval '1 millisecond'
         WHERE ${SAME_IDEMPOTENCY_KEY} AND status = 'in_progress' AND lease_until < now() RETURNING operation_id`,
        [...scope, String(claim.leaseMs)],
      );
      if (taken === undefined) continue;
      return { state: "abandoned", operationId: taken.operation_id };
    }
  }

  async purgeExpiredIdempotency(): Promise<number> {
    const rows = await this.client.query("DELETE FROM idempotency WHERE expires_at < now() RETURNING 1");
    return rows.length;
  }

  async completeIdempotent(apiKeyId: string | null, route: string, idempotencyKey: string, statusCode: number, body: unknown): Promise<void> {
    await this.client.query(
      `UPDATE idempotency SET status = 'done', status_code = $4, body = $5::json, completed_at = now() WHERE ${SAME_IDEMPOTENCY_KEY}`,
      [apiKeyId, route, idempotencyKey, statusCode, json(body)],
    );
  }

  async releaseIdempotent(apiKeyId: string | null, route: string, idempotencyKey: string): Promise<void> {
    await this.client.query(`DELETE FROM idempotency WHERE ${SAME_IDEMPOTENCY_KEY} AND status = 'in_progress'`, [
      apiKeyId,
      route,
      idempotencyKey,
    ]);
  }

  async hitRateLimit(bucket: string, limit: number, windowMs: number): Promise<RateLimitResult> {
    // A server setting, not client input: a bad one is a configuration error, never a 400.
    if (!Number.isFinite(windowMs) || windowMs < 1) throw new RangeError(`the rate-limit window must be at least 1 ms, not ${windowMs}`);
    windowMs = Math.round(windowMs);
    // The window is computed on the database's clock, so replicas with skewed clocks still share it.
    const [row] = await this.client.query<{ count: number | string; window_start: number | string; reset_ms: number | string }>(
      `WITH clock AS (SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS now_ms)
       INSERT INTO rate_limits (bucket, window_start, count)
       SELECT $1, now_ms - now_ms % $2::bigint, 1 FROM clock
       ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_limits.count + 1
       RETURNING count, window_start, window_start + $2::bigint - (SELECT now_ms FROM clock) AS reset_ms`,
      [bucket, windowMs],
    );
    if (row === undefined) throw new Error("the rate-limit upsert returned no row");
    const count = Number(row.count);
    if (count === 1) {
      // The first hit of a window retires the bucket's earlier windows, so the table stays small.
      await this.client.query("DELETE FROM rate_limits WHERE bucket = $1 AND window_start < $2::bigint", [bucket, String(row.window_start)]);
    }
    return {
      allowed: count <= limit,
      limit,
      remaining: Math.max(0, limit - count),
      resetMs: Math.max(0, Number(row.reset_ms)),
    };
  }

  senderLock(): SenderLock {
    return this.lock;
  }
}
