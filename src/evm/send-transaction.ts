import { JsonRpcApiProvider, type Transaction, type TransactionLike } from "ethers";

import { ErrorCode, TokenServiceError } from "../errors.js";
import { amountPair } from "../units.js";
import type { EvmChain } from "./chain.js";
import { translateProviderError } from "./provider-errors.js";
import { senderLockKey, type SenderLock } from "./sender-lock.js";
import { signTransaction } from "./sign-transaction.js";
import { parseSignedTransaction } from "./signed-transaction.js";
import type { PreparedTransaction } from "../operations/types.js";

export interface SignedTransactionInfo {
  transactionHash: string;
  nonce: number;
  /** Public once broadcast; stored so that a lost transaction can be sent again. */
  rawTransaction: string;
}

export interface BroadcastHooks {
  /** Runs after signing and before broadcasting, inside the sender lock: the place to write a durable record. */
  beforeBroadcast?(info: SignedTransactionInfo): Promise<void>;
  /**
   * The nonces this send may not take, inside the sender lock: the store's unfinished records may hold nonces the node
   * has not seen yet (signed before a crash, not yet re-broadcast), and prepared transactions hold theirs until signed.
   */
  heldNonces?(): Promise<number[]>;
  /** A caller-signed transaction (already checked against the request): refuses it unless it is the prepared one, inside the sender lock. */
  acceptSigned?(transaction: Transaction): Promise<void>;
}

/** What the transaction does; who signs it is the caller's `privateKey`, a `signedTransaction`, or nobody yet (prepare). */
export interface TransactionIntent {
  sender: string;
  to?: string;
  data: string;
}

export interface SendRequest extends TransactionIntent {
  /** Already checked to derive `sender`. */
  privateKey?: string;
  /** Signed by the caller; parsed and checked here. */
  signedTransaction?: string;
}

/**
 * The node's gas estimate. A JSON-RPC provider is asked directly with the request as it already stands (hex data):
 * ethers' own estimateGas copies and re-encodes a deployment's 5 KB on every call. Errors keep ethers' typing.
 */
async function estimateGas(chain: EvmChain, request: TransactionIntent): Promise<bigint> {
  const call = { from: request.sender, ...(request.to ? { to: request.to } : {}), data: request.data };
  if (!(chain.provider instanceof JsonRpcApiProvider)) return chain.provider.estimateGas(call);
  return BigInt((await chain.provider.send("eth_estimateGas", [call])) as string);
}

/** Estimates leave headroom: a block may move the base fee or the gas a call needs between estimate and inclusion. */
const GAS_HEADROOM_PERCENT = 120n;

/** The lowest nonce from the node's next one that nothing holds: a reservation that expired unused is taken again. */
export function lowestFreeNonce(next: number, held: readonly number[]): number {
  let nonce = next;
  for (const taken of held) {
    if (taken < nonce) continue;
    if (taken > nonce) break;
    nonce++;
  }
  return nonce;
}

/** Nonce, gas and fees for `request`, refused when the sender cannot pay the estimated fee. Runs inside the sender lock. */
async function buildTransaction(chain: EvmChain, request: TransactionIntent, hooks: BroadcastHooks): Promise<TransactionLike> {
  const node = `the ${chain.info.chain}/${chain.info.network} node`;
  let nonce: number, estimate: bigint, feeData, available: bigint, held: number[] | undefined;
  try {
    [nonce, estimate, feeData, available, held] = await Promise.all([
      chain.provider.getTransactionCount(request.sender, "pending"),
      estimateGas(chain, request),
      chain.provider.getFeeData(),
      chain.provider.getBalance(request.sender, "pending"),
      hooks.heldNonces?.(),
    ]);
    nonce = lowestFreeNonce(nonce, held ?? []);
  } catch (error) {
    if ((error as { code?: string }).code === "CALL_EXCEPTION") {
      throw new TokenServiceError(ErrorCode.TRANSACTION_REJECTED, `${node} reports that the transaction would revert`, { cause: error });
    }
    throw translateProviderError(error, node);
  }
  const gasLimit = (estimate * GAS_HEADROOM_PERCENT) / 100n;
  const eip1559 = feeData.maxFeePerGas !== null && feeData.maxPriorityFeePerGas !== null;
  const pricePerGas = (eip1559 ? feeData.maxFeePerGas : feeData.gasPrice) ?? 0n;
  const needed = gasLimit * pricePerGas;
  if (available < needed) {
    const decimals = chain.info.nativeDecimals;
    throw new TokenServiceError(
      ErrorCode.INSUFFICIENT_FUNDS,
      `sender ${request.sender} holds ${amountPair(available, decimals).uiBalance} ${chain.info.nativeSymbol} but the transaction may cost up to ${amountPair(needed, decimals).uiBalance} ${chain.info.nativeSymbol}`,
      { field: "sender", details: { needed: needed.toString(), available: available.toString(), symbol: chain.info.nativeSymbol } },
    );
  }
  return {
    chainId: chain.info.chainId,
    nonce,
    gasLimit,
    data: request.data,
    value: 0n,
    to: request.to ?? null,
    ...(eip1559
      ? { type: 2, maxFeePerGas: feeData.maxFeePerGas, maxPriorityFeePerGas: feeData.maxPriorityFeePerGas }
      : { type: 0, gasPrice: feeData.gasPrice }),
  };
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
    value: "0",
  };
  const mismatch = (["chainId", "to", "value", "data"] as const).find(
    (field) => String(transaction[field] ?? null).toLowerCase() !== String(expected[field]).toLowerCase(),
  );
  if (mismatch !== undefined) {
    throw new TokenServiceError(
      ErrorCode.TRANSACTION_MISMATCH,
      mismatch === "chainId"
        ? `signedTransaction is for chain id ${transaction.chainId}, not ${chain.info.chain}/${chain.info.network} (${chain.info.chainId})`
        : `signedTransaction's ${mismatch} is not what this request's body ${request.to ? "mints" : "deploys"}: sign the transaction prepared for this body, and submit it with the same body`,
      { field: "signedTransaction", details: { property: mismatch } },
    );
  }
  return transaction;
}

/**
 * Signs (or takes the caller's signed transaction) and broadcasts one transaction from `sender`: one at a time per
 * chain and sender, so nonces never collide. Refuses before sending when the sender cannot pay the estimated fee.
 */
export async function sendTransaction(
  chain: EvmChain,
  lock: SenderLock,
  request: SendRequest,
  hooks: BroadcastHooks = {},
): Promise<SignedTransactionInfo> {
  const node = `the ${chain.info.chain}/${chain.info.network} node`;
  return lock.withLock(senderLockKey(chain.info.chainId, request.sender), async () => {
    let info: SignedTransactionInfo;
    if (request.signedTransaction !== undefined) {
      const transaction = acceptedSigned(chain, request);
      await hooks.acceptSigned?.(transaction);
      info = { transactionHash: transaction.hash!, nonce: transaction.nonce, rawTransaction: transaction.serialized };
    } else {
      const transaction = await buildTransaction(chain, request, hooks);
      const { raw, hash } = signTransaction(transaction, request.privateKey!);
      info = { transactionHash: hash, nonce: Number(transaction.nonce), rawTransaction: raw };
    }
    await hooks.beforeBroadcast?.(info);
    try {
      await chain.broadcast(info.rawTransaction);
    } catch (error) {
      throw translateProviderError(error, node);
    }
    return info;
  });
}
