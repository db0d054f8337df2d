import type { OperationRecord } from "./lifecycle.js";

/**
 * The public shape of a stored operation: no API key id; the raw transactions stay in the store (they are large), and
 * so do the steps signed ahead and never sent (its transactions are those it was sent as).
 */
export function presentOperation(record: OperationRecord) {
  const { apiKeyId: _apiKeyId, rawTransaction: _raw, tokenType, transactions, ...rest } = record;
  return {
    ...rest,
    type: tokenType,
    transactions: transactions
      .filter((transaction) => transaction.broadcastAt !== null)
      .map(({ bitcoin, ...transaction }) => ({
        ...transaction,
        broadcastAt: transaction.broadcastAt!,
        // A Bitcoin transaction's fee; the coins it spends stay in the store (a block explorer shows them).
        ...(bitcoin === undefined ? {} : { fee: bitcoin.fee, feeRate: bitcoin.feeRate }),
      })),
  };
}
