import type { FeeData, Transaction, TransactionLike } from "ethers";

import { ErrorCode, TokenServiceError } from "../../../domain/errors.js";
import type { Fees } from "../../../domain/fee-ladder.js";
import { amountPair } from "../../../domain/units.js";
import type { EvmChain } from "../chain.js";
import { translateProviderError } from "../provider-errors.js";
import type { TransactionIntent } from "./send-types.js";

// The fields of a transaction a send signs (nonce, fees), and the refusal when its sender cannot pay them.

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

/** The transaction to sign with this nonce, gas limit and fees. */
export function unsignedTransaction(
  chain: EvmChain,
  request: Pick<TransactionIntent, "to" | "data" | "value">,
  nonce: number,
  gasLimit: bigint,
  fees: Fees,
): TransactionLike {
  return {
    chainId: chain.info.chainId,
    nonce,
    gasLimit,
    data: request.data,
    value: request.value ?? 0n,
    to: request.to ?? null,
    ...feeFields(fees),
  };
}

/** Fees as a transaction's fields. */
export function feeFields(fees: Fees): Pick<TransactionLike, "type" | "maxFeePerGas" | "maxPriorityFeePerGas" | "gasPrice"> {
  return fees.type === 2
    ? { type: 2, maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas }
    : { type: 0, gasPrice: fees.gasPrice };
}

/** The fees the node's fee data says a transaction takes now: EIP-1559 where the chain has a base fee, else a gas price. */
export function feesOfFeeData(feeData: FeeData): Fees {
  if (feeData.maxFeePerGas !== null && feeData.maxPriorityFeePerGas !== null) {
    return { type: 2, maxFeePerGas: feeData.maxFeePerGas, maxPriorityFeePerGas: feeData.maxPriorityFeePerGas };
  }
  return { type: 0, gasPrice: feeData.gasPrice ?? 0n };
}

/** The fees a signed transaction carries. */
export function feesOfTransaction(transaction: Pick<Transaction, "type" | "maxFeePerGas" | "maxPriorityFeePerGas" | "gasPrice">): Fees {
  return transaction.type === 2
    ? { type: 2, maxFeePerGas: transaction.maxFeePerGas ?? 0n, maxPriorityFeePerGas: transaction.maxPriorityFeePerGas ?? 0n }
    : { type: 0, gasPrice: transaction.gasPrice ?? 0n };
}

/**
 * `gasCost`: what its gas may cost at most; `l1Fee`: an OP Stack chain's L1 data fee, paid besides (0 elsewhere);
 * `value`: the native currency it sends (a NATIVE transfer's amount).
 */
export function insufficientFunds(
  chain: EvmChain,
  sender: string,
  balance: bigint,
  available: bigint,
  gasCost: bigint,
  l1Fee = 0n,
  value = 0n,
): TokenServiceError {
  const decimals = chain.info.nativeDecimals;
  const symbol = chain.info.nativeSymbol;
  const amount = (wei: bigint) => `${amountPair(wei, decimals).uiBalance} ${symbol}`;
  const left = available === balance ? "" : `, ${amount(available)} of it left after the sends queued before this one,`;
  const needed = gasCost + l1Fee + value;
  const parts = [
    ...(value > 0n ? [`the ${amount(value)} it sends`] : []),
    ...(l1Fee > 0n || value > 0n ? [`gas up to ${amount(gasCost)}`] : []),
    ...(l1Fee > 0n ? [`an L1 data fee of ${amount(l1Fee)}`] : []),
  ];
  const split = parts.length === 0 ? "" : ` (${parts.join(" plus ")})`;
  return new TokenServiceError(
    ErrorCode.INSUFFICIENT_FUNDS,
    `sender ${sender} holds ${amount(balance)}${left} but the transaction may cost up to ${amount(needed)}${split}`,
    {
      field: "sender",
      details: {
        needed: needed.toString(),
        available: available.toString(),
        symbol,
        ...(l1Fee === 0n ? {} : { l1DataFee: l1Fee.toString() }),
      },
    },
  );
}

/** A failure of the store's, asked beside the node: passed on as it is (a database outage is a 503, not the node's 502). */
class StoreFailure {
  constructor(readonly error: unknown) {}
}

export function fromStore<T>(promise: Promise<T> | undefined): Promise<T> | undefined {
  return promise?.catch((error: unknown) => Promise.reject(new StoreFailure(error)));
}

/** What a failed read beside the node means: the store's own error, or the node's, translated. */
export function nodeOrStoreError(error: unknown, node: string): unknown {
  return error instanceof StoreFailure ? error.error : translateProviderError(error, node);
}
