import { resignedTransaction } from "../../chains/evm/write/sign-transaction.js";
import type { OperationTransaction } from "../../domain/lifecycle.js";
import { feesOf } from "./decide.js";
import type { OperationStore, StoredTransaction } from "./types.js";

type Sent = Pick<OperationTransaction, "transactionHash" | "maxFeePerGas" | "maxPriorityFeePerGas" | "gasPrice">;

/**
 * The raw form of one of an operation's transactions, as it is sent: stored whole, the record's first transaction, or
 * (a fee ladder's step signed ahead) rebuilt from the first with the step's fees and stored signature. A rebuilt one
 * must hash to the step's hash: anything else is never broadcast.
 */
export function rawTransactionOf(firstRaw: string | null, transaction: Sent, stored: StoredTransaction): string {
  if (stored.rawTransaction !== null) return stored.rawTransaction;
  if (firstRaw === null)
    throw new Error(`no raw form stored for ${transaction.transactionHash}: the operation's first transaction is not kept`);
  if (stored.signature === null) return firstRaw;
  const { raw, hash } = resignedTransaction(firstRaw, feesOf(transaction), stored.signature);
  if (hash.toLowerCase() !== transaction.transactionHash.toLowerCase())
    throw new Error(`the stored signature of ${transaction.transactionHash} rebuilds ${hash}, not it`);
  return raw;
}

/** The raw form of the record's `transaction`, read from the store. */
export async function storedRawTransaction(
  store: Pick<OperationStore, "storedTransaction">,
  record: { id: string; rawTransaction: string | null },
  transaction: Sent,
): Promise<string> {
  const stored = await store.storedTransaction(record.id, transaction.transactionHash);
  if (stored === undefined) throw new Error(`${transaction.transactionHash} is not one of operation ${record.id}'s transactions`);
  return rawTransactionOf(record.rawTransaction, transaction, stored);
}
