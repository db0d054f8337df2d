import { ErrorCode, TokenServiceError } from "../../domain/errors.js";
import { quoteUpstream, upstreamLabel, type Upstream } from "./upstream.js";

/**
 * Why a node refused a transaction, read from Bitcoin Core's reject reason (sendrawtransaction's error, which Esplora
 * passes on as `sendrawtransaction RPC error: {"code":…,"message":…}`). Bitcoin Knots words them the same.
 *
 * Final: these bytes will never be accepted; a new transaction may be.
 * - `fee-too-low`: under the relay or mempool minimum, or a replacement that does not outbid what it replaces
 *   ("min relay fee not met", "mempool min fee not met", "insufficient fee"): build it again with a higher fee.
 * - `inputs-spent`: an input is spent (mined) or unknown to the node ("bad-txns-inputs-missingorspent", "missing-inputs").
 * - `conflict`: a mempool transaction spends the same inputs and may not be replaced by this one ("txn-mempool-conflict",
 *   "replacement-adds-unconfirmed").
 * - `dust`, `nonstandard`: the node's policy refuses its shape.
 * - `fee-too-high`: over the node's `maxfeerate` ("max-fee-exceeded", "absurdly-high-fee").
 * - `invalid`: consensus or decoding failure (a bad signature, "TX decode failed"): a bug if it happens.
 * - `refused`: a reason not listed here.
 * Retryable: the same bytes may be accepted later.
 * - `mempool-full`: evicted at once for want of room.
 * - `too-long-mempool-chain`: too many unconfirmed ancestors or descendants: wait for a block.
 */
export type BroadcastRefusalReason =
  | "fee-too-low"
  | "inputs-spent"
  | "conflict"
  | "dust"
  | "nonstandard"
  | "fee-too-high"
  | "invalid"
  | "refused"
  | "mempool-full"
  | "too-long-mempool-chain";

/** Refusals whose bytes may be accepted later. */
const RETRYABLE: ReadonlySet<BroadcastRefusalReason> = new Set(["mempool-full", "too-long-mempool-chain"]);

/** In this order: a replacement's "insufficient fee" message also names the conflicting transaction. */
const REASONS: ReadonlyArray<readonly [BroadcastRefusalReason, RegExp]> = [
  ["fee-too-low", /min relay fee not met|mempool min fee not met|insufficient fee|min-fee-not-met|too-low-fee/i],
  ["fee-too-high", /max-fee-exceeded|absurdly-high-fee|fee exceeds maximum/i],
  ["inputs-spent", /inputs-missingorspent|missing-inputs|missing inputs/i],
  ["conflict", /txn-mempool-conflict|too many potential replacements|replacement-adds-unconfirmed/i],
  ["mempool-full", /mempool full/i],
  ["too-long-mempool-chain", /too-long-mempool-chain|too many (unconfirmed )?(ancestors|descendants)/i],
  ["dust", /\bdust\b/i],
  ["invalid", /script-verify-flag|bad-txns|bad-witness|decode failed|TX decode|deserializ/i],
  ["nonstandard", /non-?standard|scriptpubkey|scriptsig|tx-size|version|multi-op-return|bare-multisig|non-final|non-BIP68-final/i],
];

/** "Already in the mempool" or "already in the chain": the broadcast's goal is met; the caller reports success. */
export function isAlreadyKnown(message: string): boolean {
  return /txn-already-in-mempool|txn-already-known|txn-same-nonwitness-data-in-mempool|already in (the )?block ?chain|outputs already in utxo set|already-in-utxo-set/i.test(
    message,
  );
}

export function broadcastRefusalReason(message: string): BroadcastRefusalReason {
  for (const [reason, pattern] of REASONS) if (pattern.test(message)) return reason;
  return "refused";
}

/**
 * A node's refusal of a broadcast as TRANSACTION_REJECTED: `details.reason` says why (BroadcastRefusalReason),
 * `details.retryable` whether the same bytes may be sent again later, `details.nodeMessage` what the node said.
 */
export function broadcastRefused(upstream: Upstream, nodeMessage: string, rpcCode?: number): TokenServiceError {
  const reason = broadcastRefusalReason(nodeMessage);
  const quoted = quoteUpstream(nodeMessage);
  return new TokenServiceError(ErrorCode.TRANSACTION_REJECTED, `${upstreamLabel(upstream)} refused the transaction: ${quoted}`, {
    details: {
      reason,
      retryable: RETRYABLE.has(reason),
      nodeMessage: quoted,
      ...(rpcCode !== undefined ? { rpcCode } : {}),
      backend: upstream.backend,
      endpoint: upstream.endpoint,
    },
  });
}

/**
 * What a caller of `broadcast` does next: `final` (the node refused these bytes for good), `retry` (the same bytes
 * later: a retryable refusal, or the backend did not answer; after a timeout the node may hold it, so ask
 * transactionStatus first), or undefined when the error is no broadcast failure.
 */
export function broadcastOutcome(error: unknown): { kind: "final" | "retry"; reason?: BroadcastRefusalReason } | undefined {
  if (!(error instanceof TokenServiceError)) return undefined;
  if (error.code === ErrorCode.TRANSACTION_REJECTED) {
    const reason = error.details?.reason as BroadcastRefusalReason | undefined;
    return { kind: error.details?.retryable === true ? "retry" : "final", ...(reason ? { reason } : {}) };
  }
  if (error.code === ErrorCode.UPSTREAM_UNAVAILABLE || error.code === ErrorCode.UPSTREAM_TIMEOUT) return { kind: "retry" };
  return undefined;
}
