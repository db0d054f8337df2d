import { randomUUID } from "node:crypto";

import { invalidArgument } from "../../errors.js";
import type { SenderLock } from "../../evm/sender-lock.js";
import { generateApiKey, hashApiKey, sameHash } from "./api-key-secret.js";
import { migrate } from "./migrations.js";
import { decodeOperationCursor, encodeOperationCursor } from "./operation-cursor.js";
import type { SqlClient } from "./sql-client.js";
import type {
  ApiKeyRecord,
  IdempotencyBegin,
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
    status: row.status,
    error: row.error,
    createdAt: isoTime(row.created_at),
    updatedAt: isoTime(row.updated_at),
  };
}

const OPERATION_COLUMNS = `id, api_key_id, kind, chain, network, token_type, params, sender, transaction_hash, contract_address,
  status, error, created_at, updated_at, (extract(epoch FROM created_at) * 1000000)::bigint::text AS created_us`;

/** JSON parameters go in as text with a cast: pg would turn a JS array into a PostgreSQL array. */
function json(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}

/** Matches a nullable api_key_id with the same expression as the unique index, so the index serves it. */
const SAME_IDEMPOTENCY_KEY = "coalesce(api_key_id, '') = coalesce($1::text, '') AND route = $2 AND key = $3";

export interface SqlStoreOptions {
  kind: Store["kind"];
  location: string;
  senderLock: SenderLock;
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
    await this.client.query(
      `INSERT INTO operations (id, api_key_id, kind, chain, network, token_type, params, sender, transaction_hash, contract_address, status, error)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10, $11, $12::jsonb)`,
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
      ],
    );
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

  async beginIdempotent(apiKeyId: string | null, route: string, idempotencyKey: string, requestHash: string): Promise<IdempotencyBegin> {
    // A claim released between the insert and the read leaves nothing to read: claim again.
    for (;;) {
      const claimed = await this.client.query(
        `INSERT INTO idempotency (api_key_id, route, key, request_hash, status)
         VALUES ($1, $2, $3, $4, 'in_progress') ON CONFLICT DO NOTHING RETURNING 1`,
        [apiKeyId, route, idempotencyKey, requestHash],
      );
      if (claimed.length > 0) return { state: "new" };
      const [existing] = await this.client.query<IdempotencyRow>(
        `SELECT request_hash, status, status_code, body FROM idempotency WHERE ${SAME_IDEMPOTENCY_KEY}`,
        [apiKeyId, route, idempotencyKey],
      );
      if (existing === undefined) continue;
      if (existing.request_hash !== requestHash) return { state: "conflict" };
      if (existing.status === "in_progress") return { state: "in_progress" };
      return { state: "replay", statusCode: Number(existing.status_code), body: existing.body };
    }
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
