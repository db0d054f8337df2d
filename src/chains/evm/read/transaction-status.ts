import { JsonRpcApiProvider, type TransactionReceipt } from "ethers";

import { ErrorCode, TokenServiceError } from "../../../domain/errors.js";
import type { EvmChain } from "../chain.js";
import { translateProviderError } from "../provider-errors.js";

/** dropped: only from a recorded operation the node lost and did not take back. */
export type TransactionState = "pending" | "mined" | "failed" | "dropped";

export interface TransactionStatus {
  transactionHash: string;
  status: TransactionState;
  blockNumber: number | null;
  confirmations: number;
  contractAddress: string | null;
  simulated: boolean;
}

function fromReceipt(chain: EvmChain, hash: string, receipt: TransactionReceipt | null, head: number): TransactionStatus {
  if (receipt === null) {
    return {
      transactionHash: hash,
      status: "pending",
      blockNumber: null,
      confirmations: 0,
      contractAddress: null,
      simulated: chain.simulated,
    };
  }
  return {
    transactionHash: hash,
    status: receipt.status === 1 ? "mined" : "failed",
    blockNumber: receipt.blockNumber,
    confirmations: Math.max(0, head - receipt.blockNumber + 1),
    contractAddress: receipt.contractAddress ?? null,
    simulated: chain.simulated,
  };
}

/** Status of a transaction the node knows; TRANSACTION_NOT_FOUND when it knows none by that hash. */
export async function getTransactionStatus(chain: EvmChain, hash: string): Promise<TransactionStatus> {
  const node = `the ${chain.info.chain}/${chain.info.network} node`;
  try {
    const [receipt, head] = await Promise.all([chain.provider.getTransactionReceipt(hash), chain.provider.getBlockNumber()]);
    if (receipt === null && (await chain.provider.getTransaction(hash)) === null) {
      throw new TokenServiceError(ErrorCode.TRANSACTION_NOT_FOUND, `no transaction ${hash} on ${chain.info.chain}/${chain.info.network}`, {
        field: "transactionHash",
      });
    }
    return fromReceipt(chain, hash, receipt, head);
  } catch (error) {
    throw translateProviderError(error, node);
  }
}

export async function getReceipt(chain: EvmChain, hash: string): Promise<TransactionReceipt | null> {
  try {
    return await chain.provider.getTransactionReceipt(hash);
  } catch (error) {
    throw translateProviderError(error, `the ${chain.info.chain}/${chain.info.network} node`);
  }
}

/** Where a transaction was included and whether it succeeded (1) or reverted (0): what following a record reads of its receipt. */
export interface ReceiptSummary {
  blockNumber: number;
  blockHash: string;
  status: number | null;
}

/**
 * A transaction's receipt as far as following it needs, or null while the node has none. Asked as plain JSON-RPC where
 * the provider speaks it: ethers' receipt formats every log (an address checksum, a keccak hash in JavaScript, per log),
 * which nothing here reads.
 */
export async function receiptSummary(chain: EvmChain, hash: string): Promise<ReceiptSummary | null> {
  if (!(chain.provider instanceof JsonRpcApiProvider)) {
    const receipt = await chain.provider.getTransactionReceipt(hash);
    return receipt === null ? null : { blockNumber: receipt.blockNumber, blockHash: receipt.blockHash, status: receipt.status };
  }
  const raw = (await chain.provider.send("eth_getTransactionReceipt", [hash])) as {
    blockNumber?: string | null;
    blockHash?: string | null;
    status?: string | null;
  } | null;
  // A receipt without a block is none yet (as ethers reads it).
  if (raw === null || raw.blockNumber == null || raw.blockHash == null) return null;
  return {
    blockNumber: Number(BigInt(raw.blockNumber)),
    blockHash: raw.blockHash,
    status: raw.status == null ? null : Number(BigInt(raw.status)),
  };
}

/** Polls until mined or `timeoutMs` passes; then the status is still "pending" (no error: the transaction may yet be mined). */
export async function waitForTransaction(
  chain: EvmChain,
  hash: string,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<TransactionStatus> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const receipt = await getReceipt(chain, hash);
    if (receipt !== null || Date.now() >= deadline || signal?.aborted) {
      const head = receipt === null ? 0 : await chain.provider.getBlockNumber();
      return fromReceipt(chain, hash, receipt, head);
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(chain.pollingIntervalMs, Math.max(0, deadline - Date.now()))));
  }
}
