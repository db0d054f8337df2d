import type { FeeData, Transaction, TransactionLike } from "ethers";

import { ErrorCode, TokenServiceError } from "../../../domain/errors.js";
import { maxFeeOf } from "../../../domain/fee-ladder.js";
import type { EvmChain } from "../chain.js";
import { translateProviderError } from "../provider-errors.js";
import { estimateAll, estimateError, gasLimitFor, nodeName } from "./estimates.js";
import { l1DataFee } from "./l1-fee.js";
import { sendBatch, type BatchBroadcasts, type SendJob } from "./send-batch.js";
import { SenderBatches } from "./sender-batches.js";
import { senderLockKey, type SenderLock } from "../sender-lock.js";
import type { BroadcastHooks, SendRequest, SignedTransactionInfo, TransactionIntent } from "./send-types.js";
import { parseSignedTransaction, type PreparedTransaction } from "./signed-transaction.js";
import {
  feesOfFeeData,
  feesOfTransaction,
  fromStore,
  insufficientFunds,
  lowestFreeNonce,
  nodeOrStoreError,
  unsignedTransaction,
} from "./transaction-fields.js";

/** Nonce, gas and fees for `request`, refused when the sender cannot pay the estimated fee. Runs inside the sender lock. */
async function buildTransaction(chain: EvmChain, request: TransactionIntent, hooks: BroadcastHooks): Promise<TransactionLike> {
  const node = nodeName(chain);
  let nextNonce: number, estimates: Array<PromiseSettledResult<bigint>>, feeData: FeeData, available: bigint, held: number[] | undefined;
  try {
    [nextNonce, estimates, feeData, available, held] = await Promise.all([
      chain.provider.getTransactionCount(request.sender, "pending"),
      estimateAll(chain, [request]),
      chain.provider.getFeeData(),
      chain.provider.getBalance(request.sender, "pending"),
      fromStore(hooks.heldNonces?.()),
    ]);
  } catch (error) {
    throw nodeOrStoreError(error, node);
  }
  const estimate = estimates[0]!;
  if (estimate.status === "rejected") throw await estimateError(chain, request, estimate.reason);
  const fees = feesOfFeeData(feeData);
  request.feeRules?.check(fees);
  const gasLimit = gasLimitFor(estimate.value);
  const transaction = unsignedTransaction(chain, request, lowestFreeNonce(nextNonce, held ?? []), gasLimit, fees);
  let l1Fee: bigint;
  try {
    l1Fee = await l1DataFee(chain, transaction);
  } catch (error) {
    throw translateProviderError(error, node);
  }
  const gasCost = gasLimit * maxFeeOf(fees);
  // What it sends counts: the node refuses a transaction whose value and fees together exceed the balance.
  const value = request.value ?? 0n;
  if (available < gasCost + l1Fee + value) throw insufficientFunds(chain, request.sender, available, available, gasCost, l1Fee, value);
  return transaction;
}

/** The transaction as the caller should sign it, with its nonce reserved by `reserve` (which answers when that expires). */
export async function prepareTransaction(
  chain: EvmChain,
  lock: SenderLock,
  request: TransactionIntent,
  hooks: Pick<BroadcastHooks, "heldNonces"> & { reserve(transaction: TransactionLike): Promise<string | undefined> },
): Promise<{ transaction: TransactionLike; expiresAt: string }> {
  return lock.withLock(senderLockKey(chain.info.chainId, request.sender), async () => {
    // Another process on the embedded store may reserve between our read and our insert: the next read sees its nonce.
    for (let attempt = 0; attempt < 5; attempt++) {
      const transaction = await buildTransaction(chain, request, hooks);
      const expiresAt = await hooks.reserve(transaction);
      if (expiresAt !== undefined) return { transaction, expiresAt };
    }
    throw new TokenServiceError(
      ErrorCode.NONCE_TAKEN,
      `could not reserve a nonce for ${request.sender}: other prepares keep taking them; retry`,
      {
        field: "sender",
      },
    );
  });
}

/** The caller's signed transaction, checked to carry exactly what `request` asks, on this chain. */
function acceptedSigned(chain: EvmChain, request: SendRequest): Transaction {
  const transaction = parseSignedTransaction(request.signedTransaction, request.sender);
  const expected: Pick<PreparedTransaction, "chainId" | "to" | "data" | "value"> = {
    chainId: chain.info.chainId,
    to: request.to ?? null,
    data: request.data,
    value: (request.value ?? 0n).toString(),
  };
  const mismatch = (["chainId", "to", "value", "data"] as const).find(
    (field) => String(transaction[field] ?? null).toLowerCase() !== String(expected[field]).toLowerCase(),
  );
  if (mismatch !== undefined) {
    throw new TokenServiceError(
      ErrorCode.TRANSACTION_MISMATCH,
      mismatch === "chainId"
        ? `signedTransaction is for chain id ${transaction.chainId}, not ${chain.info.chain}/${chain.info.network} (${chain.info.chainId})`
        : `signedTransaction's ${mismatch} is not what this request's body ${request.to ? "sends" : "deploys"}: sign the transaction prepared for this body, and submit it with the same body`,
      { field: "signedTransaction", details: { property: mismatch } },
    );
  }
  return transaction;
}

const batchesByLock = new WeakMap<SenderLock, SenderBatches<SendJob, SignedTransactionInfo, BatchBroadcasts>>();

/**
 * Signs (or takes the caller's signed transaction) and broadcasts one transaction from `sender`. Sends from one chain and
 * sender run one batch at a time inside the sender lock, so nonces never collide; a send is refused before signing when
 * the sender cannot pay the estimated fee.
 */
export async function sendTransaction(
  chain: EvmChain,
  lock: SenderLock,
  request: SendRequest,
  hooks: BroadcastHooks = {},
): Promise<SignedTransactionInfo> {
  if (request.signedTransaction !== undefined) return sendSigned(chain, lock, request, hooks);
  let batches = batchesByLock.get(lock);
  if (batches === undefined) batchesByLock.set(lock, (batches = new SenderBatches(lock, sendBatch)));
  return batches.submit(chain, request.sender, { request, hooks });
}

/** A caller-signed transaction carries its own (reserved) nonce: it is checked and sent alone, inside the sender lock. */
async function sendSigned(chain: EvmChain, lock: SenderLock, request: SendRequest, hooks: BroadcastHooks): Promise<SignedTransactionInfo> {
  return lock.withLock(senderLockKey(chain.info.chainId, request.sender), async () => {
    const transaction = acceptedSigned(chain, request);
    await hooks.acceptSigned?.(transaction);
    const info: SignedTransactionInfo = {
      transactionHash: transaction.hash!,
      nonce: transaction.nonce,
      rawTransaction: transaction.serialized,
      fees: feesOfTransaction(transaction),
    };
    await hooks.beforeBroadcast?.(info);
    try {
      await chain.broadcast(info.rawTransaction);
    } catch (error) {
      throw translateProviderError(error, nodeName(chain));
    }
    return info;
  });
}

/** How many sends from `sender` on `chain` wait for its next batch under `lock`. */
export function waitingSends(chain: EvmChain, lock: SenderLock, sender: string): number {
  return batchesByLock.get(lock)?.waiting(chain, sender) ?? 0;
}
