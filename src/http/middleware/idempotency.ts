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
  /** The answer an operation's record gives as it stands now, without waiting; undefined when nothing was recorded. */
  peek: (operationId: string) => Promise<RouteResult | undefined> = async () => undefined,
  /** Whether the operation's record must be written before its key is free (a refused send's `failed`, see writeRefusal). */
  heldBack: (operationId: string) => boolean = () => false,
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
    // The first request may have answered already and lost the database before it could say so here, or still be
    // waiting for its transaction: once its record is readable, that record is the answer, never a second launch.
    const recorded = claim.operationId === null ? undefined : await peek(claim.operationId).catch(() => undefined);
    if (recorded !== undefined) return { replayed: true, result: recorded };
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
    await releaseClaim(store, scope, () => heldBack(operationId));
    throw error;
  }
  // An answer is given even when it cannot be kept here (the database went away): a retry then gets it from the
  // operation's record, or runs anew when the request recorded nothing.
  await store.completeIdempotent(scope.apiKeyId, scope.route, scope.key, result.status ?? 200, result.body).catch(() => undefined);
  return { replayed: false, result };
}

/** How often, and for how long, a claim whose request failed is released again while the database refuses. */
const RELEASE_RETRY_MS = 1_000;

/**
 * Frees the key of a request that ended in an error, so a corrected retry runs at once. While the database refuses
 * (the error may be its outage), the release is tried again until it holds or the claim's lease would end anyway.
 */
async function releaseClaim(
  store: Store,
  scope: { apiKeyId: string | null; route: string; key: string; leaseMs: number },
  heldBack: () => boolean,
): Promise<void> {
  const until = Date.now() + scope.leaseMs;
  const later = () => {
    if (Date.now() + RELEASE_RETRY_MS < until) setTimeout(() => void attempt(), RELEASE_RETRY_MS).unref();
  };
  // A key freed before its refused send's record says `failed` could run the send again while that record may still be
  // sent (by the next start, were this process stopped first): the key waits for the record.
  const attempt = (): Promise<void> =>
    heldBack() ? Promise.resolve(later()) : store.releaseIdempotent(scope.apiKeyId, scope.route, scope.key).catch(later);
  await attempt();
}
