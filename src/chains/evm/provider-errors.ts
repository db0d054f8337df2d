import { isError } from "ethers";

import { ErrorCode, TokenServiceError } from "../../domain/errors.js";
import { refusalOf } from "./node-refusals.js";

/**
 * A call a simulated chain's rpc-errors fault failed on purpose, as a live node behind a busy gateway fails one: an
 * HTTP 429 or 503 answer, or none within the request timeout. It says nothing about the call itself.
 */
export class SimulatedNodeFailure extends Error {
  override name = "SimulatedNodeFailure";
  constructor(
    readonly kind: "429" | "503" | "timeout",
    pair: string,
  ) {
    super(
      kind === "timeout"
        ? `request timeout: the simulated ${pair} node did not answer (rpc-errors fault)`
        : `${kind === "429" ? "429 Too Many Requests" : "503 Service Unavailable"}: the simulated ${pair} node refused the call (rpc-errors fault)`,
    );
  }
}

/** What a node says when it did not judge a call at all: a rate limit, an outage, a timeout. */
const UNANSWERED = /\b(429|503)\b|too many requests|rate limit|service unavailable|request timeout|timed out/i;

/**
 * Ethers calls every failed `eth_call` and `eth_estimateGas` a CALL_EXCEPTION, whatever the node answered: a provider's
 * rate limit or outage sent as a JSON-RPC error (or through an EIP-1193 provider, as a simulated chain's rpc-errors
 * fault is) included. Such a call was never judged, so it is no revert: true for those.
 */
export function isUnansweredCall(error: unknown): boolean {
  if (error instanceof SimulatedNodeFailure) return true;
  const inner = (error as { info?: { error?: { message?: unknown } } } | null)?.info?.error?.message;
  return typeof inner === "string" && !/revert/i.test(inner) && UNANSWERED.test(inner);
}

/**
 * The node refused a transaction as too cheap for the chain now: its max fee under the base fee, or its price under
 * what the pool takes. Not a replacement refused for its bump (another transaction holds the nonce). Read on the raw
 * error, whose text is never copied; the wordings: node-refusals.ts.
 */
export function isUnderpriced(error: unknown): boolean {
  return refusalOf(error) === "underpriced";
}

/**
 * Maps a provider failure to a typed error. The upstream message is not copied:
 * it can quote the signed transaction or the endpoint URL with its credentials.
 */
export function translateProviderError(error: unknown, upstream: string): TokenServiceError {
  if (error instanceof TokenServiceError) return error;
  if (error instanceof SimulatedNodeFailure && error.kind !== "timeout") {
    return new TokenServiceError(ErrorCode.UPSTREAM_UNAVAILABLE, `${upstream} failed to answer (${error.kind})`, { cause: error });
  }
  const text = String((error as { message?: unknown })?.message ?? error);
  // What the node itself said, where ethers keeps it apart (a failed eth_call or eth_estimateGas): read, never copied.
  const said = String((error as { info?: { error?: { message?: unknown } } } | null)?.info?.error?.message ?? "");
  // A timeout reported by the node (or, through an EIP-1193 provider, a message saying so) is one as much as ethers' own.
  if (isError(error, "TIMEOUT") || /\brequest timeout\b|\btimed out\b/i.test(`${text}\n${said}`)) {
    return new TokenServiceError(ErrorCode.UPSTREAM_TIMEOUT, `${upstream} did not answer in time`, { cause: error });
  }
  const refusal = isError(error, "INSUFFICIENT_FUNDS") ? "insufficient-funds" : refusalOf(error);
  switch (refusal) {
    case "insufficient-funds":
      return new TokenServiceError(ErrorCode.INSUFFICIENT_FUNDS, `${upstream} refused the transaction: insufficient funds for gas`, {
        field: "sender",
        cause: error,
      });
    case "nonce-too-low":
      return new TokenServiceError(ErrorCode.TRANSACTION_REJECTED, `${upstream} rejected the transaction: nonce too low`, { cause: error });
    case "already-known":
    case "replacement-underpriced":
      return new TokenServiceError(
        ErrorCode.TRANSACTION_REJECTED,
        `${upstream} rejected the transaction: a transaction with this nonce is already pending`,
        { cause: error },
      );
    case "underpriced":
      return new TokenServiceError(
        ErrorCode.TRANSACTION_REJECTED,
        `${upstream} refused the transaction as too cheap for the chain now: its max fee per gas is under the base fee (or its price under what the node's pool takes)`,
        { cause: error },
      );
  }
  return new TokenServiceError(ErrorCode.UPSTREAM_UNAVAILABLE, `${upstream} failed to answer`, { cause: error });
}
