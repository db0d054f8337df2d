import { sql, type Kysely } from "kysely";

import type { DialectSql } from "./dialect.js";
import { json } from "./operation-rows.js";
import type { Database } from "./schema.js";
import type { IdempotencyBegin, IdempotencyClaim } from "./types.js";

// The claims of Idempotency-Key requests: the first request with a key claims it for a lease, and its answer is kept
// for the retention, replayed to a retry with the same request; a claim whose owner died is taken over once.

const DEFAULT_CLAIM: IdempotencyClaim = { leaseMs: 120_000, retentionMs: 24 * 3_600_000 };

/** The same expression as the unique index, so the index serves the lookup on both databases. */
function sameKey(apiKeyId: string | null) {
  return { keyExpression: sql<string>`coalesce(api_key_id, '')`, apiKey: apiKeyId ?? "" } as const;
}

export async function beginIdempotent(
  db: Kysely<Database>,
  d: DialectSql,
  apiKeyId: string | null,
  route: string,
  idempotencyKey: string,
  requestHash: string,
  claim: IdempotencyClaim = DEFAULT_CLAIM,
): Promise<IdempotencyBegin> {
  const scope = sameKey(apiKeyId);
  const now = d.nowMs;
  // A claim released (or expired) between the insert and the read leaves nothing to read: claim again.
  for (;;) {
    await db
      .deleteFrom("idempotency")
      .where(scope.keyExpression, "=", scope.apiKey)
      .where("route", "=", route)
      .where("key", "=", idempotencyKey)
      .where("expires_at", "<", now)
      .execute();
    const claimed = await db
      .insertInto("idempotency")
      .values({
        api_key_id: apiKeyId,
        route,
        key: idempotencyKey,
        request_hash: requestHash,
        status: "in_progress",
        operation_id: claim.operationId ?? null,
        created_at: now,
        lease_until: sql`${now} + ${Math.round(claim.leaseMs)}`,
        expires_at: sql`${now} + ${Math.round(claim.retentionMs)}`,
      })
      .onConflict((conflict) => conflict.doNothing())
      .returning(sql<number>`1`.as("claimed"))
      .execute();
    if (claimed.length > 0) return { state: "new" };
    const existing = await db
      .selectFrom("idempotency")
      .select(["request_hash", "status", "status_code", "body", "operation_id", "lease_until", now.as("now_ms")])
      .where(scope.keyExpression, "=", scope.apiKey)
      .where("route", "=", route)
      .where("key", "=", idempotencyKey)
      .executeTakeFirst();
    if (existing === undefined) continue;
    if (existing.request_hash !== requestHash) return { state: "conflict" };
    if (existing.status === "done") return { state: "replay", statusCode: Number(existing.status_code), body: d.readJson(existing.body) };
    if (Number(existing.lease_until) >= Number(existing.now_ms)) return { state: "in_progress", operationId: existing.operation_id };
    // The owner died (or overran its lease): take the claim over, once, for whoever gets here first.
    const taken = await db
      .updateTable("idempotency")
      .set({ lease_until: sql`${now} + ${Math.round(claim.leaseMs)}` })
      .where(scope.keyExpression, "=", scope.apiKey)
      .where("route", "=", route)
      .where("key", "=", idempotencyKey)
      .where("status", "=", "in_progress")
      .where("lease_until", "<", now)
      .returning("operation_id")
      .executeTakeFirst();
    if (taken === undefined) continue;
    return { state: "abandoned", operationId: taken.operation_id };
  }
}

export async function completeIdempotent(
  db: Kysely<Database>,
  d: DialectSql,
  apiKeyId: string | null,
  route: string,
  idempotencyKey: string,
  statusCode: number,
  body: unknown,
): Promise<void> {
  const scope = sameKey(apiKeyId);
  await db
    .updateTable("idempotency")
    .set({ status: "done", status_code: statusCode, body: json(body), completed_at: d.nowMs })
    .where(scope.keyExpression, "=", scope.apiKey)
    .where("route", "=", route)
    .where("key", "=", idempotencyKey)
    .execute();
}

export async function releaseIdempotent(
  db: Kysely<Database>,
  apiKeyId: string | null,
  route: string,
  idempotencyKey: string,
): Promise<void> {
  const scope = sameKey(apiKeyId);
  await db
    .deleteFrom("idempotency")
    .where(scope.keyExpression, "=", scope.apiKey)
    .where("route", "=", route)
    .where("key", "=", idempotencyKey)
    .where("status", "=", "in_progress")
    .execute();
}

export async function purgeExpiredIdempotency(db: Kysely<Database>, d: DialectSql): Promise<number> {
  const result = await db.deleteFrom("idempotency").where("expires_at", "<", d.nowMs).executeTakeFirst();
  return Number(result.numDeletedRows);
}
