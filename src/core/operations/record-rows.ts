// The rows a write stores beside its record: its transactions, and a faucet grant's record.

import type { SignedTransactionInfo } from "../../chains/evm/write/send-types.js";
import { columnsOf } from "./replacements.js";
import type { NewOperation, NewOperationTransaction } from "./types.js";

/**
 * The rows a send writes with its record: the transaction it broadcasts (its raw form is the record's own), and those it
 * signed ahead: its ladder's steps as signatures over the same call, its cancel whole.
 */
export function transactionsOf(signed: SignedTransactionInfo): NewOperationTransaction[] {
  const common = { nonce: signed.nonce };
  return [
    {
      ...common,
      transactionHash: signed.transactionHash,
      role: "original",
      rung: 0,
      rawTransaction: null,
      signature: null,
      ...columnsOf(signed.fees),
      broadcast: true,
    },
    ...(signed.ahead ?? []).map((step): NewOperationTransaction => ({
      ...common,
      transactionHash: step.transactionHash,
      role: step.role,
      rung: step.rung,
      rawTransaction: step.role === "cancel" ? step.rawTransaction : null,
      signature: step.role === "replacement" ? step.signature : null,
      ...columnsOf(step.fees),
      broadcast: false,
    })),
  ];
}

/** A faucet grant's record, before its status: the address and amount, no transaction of its own. */
export function faucetRecord(
  id: string,
  apiKeyId: string | null,
  grant: { chain: string; network: string; address: string; amount: string },
): Omit<NewOperation, "status"> {
  return {
    id,
    apiKeyId,
    kind: "faucet",
    chain: grant.chain,
    network: grant.network,
    tokenType: null,
    params: { address: grant.address, amount: grant.amount },
    sender: null,
    transactionHash: null,
    contractAddress: null,
    error: null,
  };
}
