import type { TransactionLike } from "ethers";

import { ErrorCode, TokenServiceError } from "../errors.js";
import { amountPair } from "../units.js";
import type { EvmChain } from "./chain.js";
import { translateProviderError } from "./provider-errors.js";
import { senderLockKey, type SenderLock } from "./sender-lock.js";
import { signTransaction } from "./sign-transaction.js";

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
   * The lowest nonce this send may use, inside the sender lock: the store's unfinished records may hold
   * nonces the node has not seen yet (signed before a crash, not yet re-broadcast).
   */
  minimumNonce?(): Promise<number | undefined>;
}

export interface SendRequest {
  sender: string;
  /** Already checked to derive `sender`. */
  privateKey: string;
  to?: string;
  data: string;
}

/** Estimates leave headroom: a block may move the base fee or the gas a call needs between estimate and inclusion. */
const GAS_HEADROOM_PERCENT = 120n;

/**
 * Signs and broadcasts one transaction from `sender`: one at a time per chain
 * and sender, so nonces never collide. Refuses before sending when the sender
 * cannot pay the estimated fee.
 */
export async function sendTransaction(
  chain: EvmChain,
  lock: SenderLock,
  request: SendRequest,
  hooks: BroadcastHooks = {},
): Promise<SignedTransactionInfo> {
  const node = `the ${chain.info.chain}/${chain.info.network} node`;
  return lock.withLock(senderLockKey(chain.info.chainId, request.sender), async () => {
    let nonce: number, estimate: bigint, feeData, available: bigint, reserved: number | undefined;
    try {
      [nonce, estimate, feeData, available, reserved] = await Promise.all([
        chain.provider.getTransactionCount(request.sender, "pending"),
        chain.provider.estimateGas({ from: request.sender, ...(request.to ? { to: request.to } : {}), data: request.data }),
        chain.provider.getFeeData(),
        chain.provider.getBalance(request.sender, "pending"),
        hooks.minimumNonce?.(),
      ]);
      nonce = Math.max(nonce, reserved ?? 0);
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
    const transaction: TransactionLike = {
      chainId: chain.info.chainId,
      nonce,
      gasLimit,
      data: request.data,
      value: 0n,
      ...(request.to ? { to: request.to } : {}),
      ...(eip1559
        ? { type: 2, maxFeePerGas: feeData.maxFeePerGas, maxPriorityFeePerGas: feeData.maxPriorityFeePerGas }
        : { type: 0, gasPrice: feeData.gasPrice }),
    };
    const { raw: signed, hash } = signTransaction(transaction, request.privateKey);
    const info = { transactionHash: hash, nonce, rawTransaction: signed };
    await hooks.beforeBroadcast?.(info);
    try {
      await chain.broadcast(signed);
    } catch (error) {
      throw translateProviderError(error, node);
    }
    return info;
  });
}
