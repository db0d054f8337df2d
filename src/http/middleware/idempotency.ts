import { createHash } from "node:crypto";

import { ErrorCode, TokenServiceError } from "../../domain/errors.js";
import { HttpError, HttpErrorCode } from "../http-errors.js";
import type { Store } from "../../store/types.js";
import type { RouteResult } from "../route.js";

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** Identifies a request by its meaning; the private key is left out (the sender already names the signer). */
export function requestFingerprint(query: unknown, body: unknown): string {
  const { privateKey: _secret, ...rest } = (body ?? {}) as Record<string, unknown>;
  return createHash("sha256")
    .update(canonicalJson({ query, body: rest }))
    .digest("hex");
}

export type IdempotentOutcome = { replayed: true; result: RouteResult } | { replayed: false; result: RouteResult };

/**
 * Runs `work` at most once per Idempotency-Key: a retry with the same body gets
 * the stored response and sends nothing; another body under the key is a 409.
 * Failures release the key so that a corrected retry can run.
 */
export async function runIdempotent(
  store: Store,
  scope: {
    apiKeyId: string | null;
    route: string;
    key: string;
    fingerprint: string;
    operationId: string;
    leaseMs: number;
    retentionMs: number;
  },
  work: (operationId: string) => Promise<RouteResult>,
  /** The answer an operation's record gives, when a crash left its claim unfinished; undefined when nothing was recorded. */
  settle: (operationId: string) => Promise<RouteResult | undefined>,
): Promise<IdempotentOutcome> {
  if (scope.key.length === 0 || scope.key.length > 255) {
    throw new TokenServiceError(ErrorCode.INVALID_ARGUMENT, "Idempotency-Key must be 1 to 255 characters", { field: "Idempotency-Key" });
  }
  const claim = await store.beginIdempotent(scope.apiKeyId, scope.route, scope.key, scope.fingerprint, {
    operationId: scope.operationId,
    leaseMs: scope.leaseMs,
    retentionMs: scope.retentionMs,
  });
  if (claim.state === "replay") return { replayed: true, result: { status: claim.statusCode, body: claim.body } };
  if (claim.state === "conflict") {
    throw new HttpError(HttpErrorCode.IDEMPOTENCY_CONFLICT, "this Idempotency-Key was used with another request body", "Idempotency-Key");
  }
  if (claim.state === "in_progress") {
    throw new HttpError(
      HttpErrorCode.IDEMPOTENCY_IN_PROGRESS,
      "a request with this Idempotency-Key is still in progress; retry later",
      "Idempotency-Key",
      { "Retry-After": "1" },
    );
  }
  let operationId = scope.operationId;
  if (claim.state === "abandoned" && claim.operationId !== null) {
    // Its owner died. If it signed, the record is the outcome (same hash, same address); if not, run it now.
    const settled = await settle(claim.operationId);
    if (settled !== undefined) {
      await store.completeIdempotent(scope.apiKeyId, scope.route, scope.key, settled.status ?? 200, settled.body);
      return { replayed: true, result: settled };
    }
    operationId = claim.operationId;
  }
  let result: RouteResult;
  try {
    result = await work(operationId);
  } catch (error) {
    await store.releaseIdempotent(scope.apiKeyId, scope.route, scope.key);
    throw error;
  }
  await store.completeIdempotent(scope.apiKeyId, scope.route, scope.key, result.status ?? 200, result.body);
  return { replayed: false, result };
}
