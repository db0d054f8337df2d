import { isError } from "ethers";

import { ErrorCode, TokenServiceError } from "../../domain/errors.js";

/**
 * Maps a provider failure to a typed error. The upstream message is not copied:
 * it can quote the signed transaction or the endpoint URL with its credentials.
 */
export function translateProviderError(error: unknown, upstream: string): TokenServiceError {
  if (error instanceof TokenServiceError) return error;
  if (isError(error, "TIMEOUT")) {
    return new TokenServiceError(ErrorCode.UPSTREAM_TIMEOUT, `${upstream} did not answer in time`, { cause: error });
  }
  if (isError(error, "INSUFFICIENT_FUNDS")) {
    return new TokenServiceError(ErrorCode.INSUFFICIENT_FUNDS, `${upstream} refused the transaction: insufficient funds for gas`, {
      field: "sender",
      cause: error,
    });
  }
  const text = String((error as { message?: unknown })?.message ?? error);
  // EDR (Hardhat's simulated chains) says "Sender doesn't have enough funds to send tx".
  if (/insufficient funds|doesn't have enough funds/i.test(text)) {
    return new TokenServiceError(ErrorCode.INSUFFICIENT_FUNDS, `${upstream} refused the transaction: insufficient funds for gas`, {
      field: "sender",
      cause: error,
    });
  }
  if (/nonce too low|already known|replacement transaction underpriced/i.test(text)) {
    return new TokenServiceError(
      ErrorCode.TRANSACTION_REJECTED,
      `${upstream} rejected the transaction: ${/nonce too low/i.test(text) ? "nonce too low" : "a transaction with this nonce is already pending"}`,
      {
        cause: error,
      },
    );
  }
  return new TokenServiceError(ErrorCode.UPSTREAM_UNAVAILABLE, `${upstream} failed to answer`, { cause: error });
}
