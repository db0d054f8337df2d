import { ErrorCode, TokenServiceError } from "../../domain/errors.js";
import { dustThreshold, estimateVirtualSize, feeFor, INPUT_WEIGHT } from "./tx-size.js";
import type { BitcoinAddressType } from "./wallet-keys.js";

/** An output the sender may spend: where it is, what it holds, how deep it is buried (0: in the mempool). */
export interface SpendableOutput {
  txid: string;
  vout: number;
  value: bigint;
  confirmations: number;
}

export interface SelectionRequest {
  /** What the sender's address holds, as the backend listed it. */
  candidates: readonly SpendableOutput[];
  /** Inputs the transaction must spend whatever else it spends (a replacement's original inputs). */
  required?: readonly SpendableOutput[];
  /** Every input is of this type: a send spends one address's coins. */
  inputType: BitcoinAddressType;
  /** The outputs paid whatever the inputs: the recipient's. */
  payments: ReadonlyArray<{ script: Uint8Array; value: bigint }>;
  /** Where change goes (the sender's own address). */
  changeScript: Uint8Array;
  /** sat/vB. */
  feeRate: number;
  /** A floor of the fee for a transaction of that vsize (BIP 125's rules 3 and 4 for a replacement); none by default. */
  minimumFee?: (vsize: number) => bigint;
  /** Only spend candidates with at least this many confirmations (a replacement may add no unconfirmed input). */
  minConfirmations?: number;
  /** The field INSUFFICIENT_FUNDS names: `amount` for a send, `feeRate` for a fee bump. */
  shortfallField?: string;
}

export interface Selection {
  inputs: SpendableOutput[];
  /** 0n when there is no change output: what was left over (below the dust threshold) went to the fee. */
  change: bigint;
  fee: bigint;
  /** The estimated vsize the fee was computed for (an upper bound of the signed transaction's). */
  vsize: number;
}

/**
 * Chooses the inputs of a send: largest first, confirmed coins before mempool ones.
 *
 * Why largest-first rather than branch-and-bound: it spends the fewest inputs, so the fee is the smallest one can pay
 * now; it is deterministic, which keeps a send and its records reproducible; and it nearly always leaves a change
 * output, which a fee bump (RBF) can shrink without adding inputs. Branch-and-bound would save a change output when an
 * exact match exists, which for a service paying arbitrary amounts from few coins is rare. Confirmed coins go first
 * because a send built on an unconfirmed parent fails with it; mempool coins (the sender's own change, most often) are
 * used when confirmed ones do not cover the payment, so consecutive sends need not wait for a block.
 *
 * Change: returned to the sender when it is at least the dust threshold of the change script; below it, the
 * remainder goes to the fee (it would cost more to spend than it holds). A coin worth less than the fee its own input
 * costs is never added (it would lower what the selection can pay).
 */
export function selectCoins(request: SelectionRequest): Selection {
  const { inputType, payments, changeScript, feeRate } = request;
  const paymentScripts = payments.map((payment) => payment.script);
  const paying = payments.reduce((sum, payment) => sum + payment.value, 0n);
  const changeDust = dustThreshold(changeScript);
  const inputFee = feeFor(Math.ceil(INPUT_WEIGHT[inputType] / 4), feeRate);
  const minimumFee = request.minimumFee ?? (() => 0n);
  const feeAt = (inputCount: number, withChange: boolean) => {
    const vsize = estimateVirtualSize(inputType, inputCount, withChange ? [...paymentScripts, changeScript] : paymentScripts);
    const byRate = feeFor(vsize, feeRate);
    const floor = minimumFee(vsize);
    return { vsize, fee: byRate > floor ? byRate : floor };
  };

  const key = (output: SpendableOutput) => `${output.txid}:${output.vout}`;
  const required = request.required ?? [];
  const taken = new Set(required.map(key));
  const pool = request.candidates
    .filter((output) => !taken.has(key(output)))
    .filter((output) => output.confirmations >= (request.minConfirmations ?? 0))
    .filter((output) => output.value > inputFee)
    .sort(largestFirst);

  const selected = [...required];
  let total = selected.reduce((sum, output) => sum + output.value, 0n);
  for (let next = 0; ; next++) {
    if (selected.length > 0) {
      const withChange = feeAt(selected.length, true);
      const change = total - paying - withChange.fee;
      if (change >= changeDust) return { inputs: selected, change, fee: withChange.fee, vsize: withChange.vsize };
      const without = feeAt(selected.length, false);
      if (total >= paying + without.fee) return { inputs: selected, change: 0n, fee: total - paying, vsize: without.vsize };
    }
    const candidate = pool[next];
    if (candidate === undefined) break;
    selected.push(candidate);
    total += candidate.value;
  }

  const { fee } = feeAt(Math.max(selected.length, 1), false);
  const needed = paying + fee;
  throw new TokenServiceError(
    ErrorCode.INSUFFICIENT_FUNDS,
    `the sender's spendable coins hold ${total} sat but the send needs ${needed} sat (${paying} sat to pay plus a fee of ${fee} sat at ${feeRate} sat/vB)`,
    {
      field: request.shortfallField ?? "amount",
      details: { needed: needed.toString(), available: total.toString(), symbol: "BTC", fee: fee.toString() },
    },
  );
}

/** Confirmed before unconfirmed, then larger value first; ties by outpoint so that the order is deterministic. */
function largestFirst(a: SpendableOutput, b: SpendableOutput): number {
  const aConfirmed = a.confirmations > 0;
  const bConfirmed = b.confirmations > 0;
  if (aConfirmed !== bConfirmed) return aConfirmed ? -1 : 1;
  if (a.value !== b.value) return a.value > b.value ? -1 : 1;
  if (a.txid !== b.txid) return a.txid < b.txid ? -1 : 1;
  return a.vout - b.vout;
}
