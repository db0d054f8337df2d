import type { OperationRecord } from "../core/operations/types.js";

/** The public shape of a stored operation: no API key id; the raw transaction stays in the store (it is large). */
export function presentOperation(record: OperationRecord) {
  const { apiKeyId: _apiKeyId, rawTransaction: _raw, tokenType, ...rest } = record;
  return { ...rest, type: tokenType };
}
